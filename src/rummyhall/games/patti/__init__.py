"""Rummy Patti, the three-card betting game: everything of the game in one folder
(docs/architecture.md). ``engine`` is the pure engine, ``rules`` its config and numbers, ``hands``
the hand ranking, ``bot`` its bot, ``rooms`` its lobby rooms, ``plugin`` its catalog entry."""

COMPILED = ("engine", "hands")
"""The modules of this folder the build compiles with mypyc: the engine, which every action of
every Patti table runs, and the hand ranking it reads for every seat's view (docs/solver.md,
"The compiled build"). ``rummyhall.native`` reads this tuple from the source, without importing
the package."""
