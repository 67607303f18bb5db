{
    'name': 'L10n Latam Base',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
