"""The room server (DESIGN.md, "The server"): the ASGI app, its HTTP API and WebSocket protocol,
one actor per live table, timers, bots filling seats. The top of the Python layers: it reaches the
games only through :mod:`rummyhall.catalog`."""
