{
    'name': 'Payment',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
