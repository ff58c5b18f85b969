"""The terminal tables of ``rummyhall play``: :mod:`rummyhall.terminal.base` is what every
game's table shares; each game's own table is ``games/<name>/terminal.py``, named by its catalog
entry (:attr:`rummyhall.catalog.GamePlugin.terminal`)."""
