# The stand-in's `mail` module: a folder as the real ERP lays it out (addons/mail); no Python runs.
