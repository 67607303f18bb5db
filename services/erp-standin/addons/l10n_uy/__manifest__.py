{
    'name': 'L10n Uy',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
