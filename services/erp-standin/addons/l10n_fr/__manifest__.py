{
    'name': 'L10n Fr',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
