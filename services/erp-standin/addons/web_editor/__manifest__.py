{
    'name': 'Web Editor',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
