# The stand-in's `web` module: a folder as the real ERP lays it out (addons/web); no Python runs.
