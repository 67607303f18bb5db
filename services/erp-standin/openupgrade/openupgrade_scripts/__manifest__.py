{
    'name': 'OpenUpgrade Scripts (stand-in)',
    'version': '1.0',
    'depends': ['base'],
    'license': 'AGPL-3',
    # OCA/OpenUpgrade openupgrade_scripts: its scripts/ folder is the upgrade path.
    'installable': True,
}
