{
    'name': 'OpenUpgrade Framework (stand-in)',
    'version': '1.0',
    'depends': ['base'],
    'license': 'AGPL-3',
    # OCA/OpenUpgrade openupgrade_framework: loaded with --load, never installed.
    'installable': True,
}
