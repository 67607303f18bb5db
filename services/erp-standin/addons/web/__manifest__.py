{
    'name': 'web',
    'version': '1.0',
    'depends': ['base'],
    'installable': True,
}
