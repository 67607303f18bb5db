{
    'name': 'Account Edi Ubl Cii',
    'version': '1.0',
    'depends': ['base'],
    'license': 'LGPL-3',
}
