"""13-card Indian Rummy (two rule profiles, points and pools): everything of the game in one folder
(docs/architecture.md). ``engine`` is the pure engine, ``rules`` its config and numbers, ``bot``
its bot, ``rooms`` its lobby rooms, ``plugin`` its catalog entry."""
