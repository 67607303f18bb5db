{
    'name': 'L10n Co',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
