{
    'name': 'L10n Latam Check',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
