"""Storage: the database handle, the schema and its migrations, and the repositories (accounts,
tables and their logs, hand history). Chips live in ``rummyhall.economy.ledger``."""
