"""Game engines: one pure rule engine per game, all following :mod:`rummyhall.games.protocol`."""
