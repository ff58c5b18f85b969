"""What the draw-and-discard rummy games share (13-card Indian Rummy, 21-card Marriage Rummy): one
engine, its rule types, its views, its events and its text, and the bot, the terminal table and
the simulation tally that build on them. Not a game itself: it has no ``plugin`` module, so the
catalog does not list it; each game's folder builds on it (docs/architecture.md)."""

COMPILED = ("engine", "bot")
"""The modules of this folder the build compiles with mypyc: the engine and the bot, which every
action of every rummy game runs (docs/solver.md, "The compiled build"). ``rummyhall.native``
reads this tuple from the source, without importing the package."""
