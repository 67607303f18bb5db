{
    'name': 'L10n Latam Invoice Document',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
