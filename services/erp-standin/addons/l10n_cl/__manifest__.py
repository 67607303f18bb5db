{
    'name': 'L10n Cl',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
