{
    'name': 'L10n Ar',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
