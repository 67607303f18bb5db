{
    'name': 'Base',
    'version': '1.3',
    'depends': [],
    'license': 'LGPL-3',
}
