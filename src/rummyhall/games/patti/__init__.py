"""Rummy Patti, the three-card betting game: everything of the game in one folder
(docs/architecture.md). ``engine`` is the pure engine, ``rules`` its config and numbers, ``hands``
the hand ranking, ``bot`` its bot, ``rooms`` its lobby rooms, ``plugin`` its catalog entry."""
