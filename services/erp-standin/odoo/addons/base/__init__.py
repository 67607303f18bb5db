# The stand-in's `base` module: a folder as the real ERP lays it out (odoo/addons/base); no Python runs.
