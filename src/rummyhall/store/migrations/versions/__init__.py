"""One file per schema revision (Alembic ignores this one)."""
