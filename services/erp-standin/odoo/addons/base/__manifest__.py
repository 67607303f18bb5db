{
    'name': 'Base',
    'version': '1.3',
    'installable': True,
}
