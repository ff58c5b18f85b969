# Rummy Hall: `make run` starts the room, `make test` runs every check. Both install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench soak clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The room on http://localhost:8000: SQLite in ./data, bots fill empty seats.
run: $(STAMP)
	$(BIN)/rummyhall serve --port 8000 --data-dir data

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/rummyhall

unit: $(STAMP)
	$(BIN)/pytest -W error

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/simulate.py
	$(BIN)/python bench/patti.py
	$(BIN)/python bench/load.py

soak: $(STAMP)
	RUMMYHALL_SOAK=1 $(BIN)/pytest -W error tests

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
