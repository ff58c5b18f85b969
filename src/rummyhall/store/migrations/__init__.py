"""Alembic migrations, shipped inside the package and applied by ``Database.open``."""
