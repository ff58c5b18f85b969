# Rummy Hall: `make run` starts the room, `make test` runs every check. Both install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench soak clean lock audit-deps

# setup.py compiles the hot modules in place (mypyc): an edit to one of them, or to the list
# (native.py, a game folder's __init__.py), rebuilds.
COMPILED := $(shell $(PYTHON) src/rummyhall/native.py)

$(STAMP): pyproject.toml setup.py src/rummyhall/native.py $(wildcard src/rummyhall/games/*/__init__.py) $(COMPILED)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The room on http://localhost:8000: SQLite in ./data, bots fill empty seats.
run: $(STAMP)
	$(BIN)/rummyhall serve --port 8000 --data-dir data

lint: $(STAMP)
	$(BIN)/ruff check src tests bench tools
	$(BIN)/ruff format --check src tests bench tools

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/rummyhall

unit: $(STAMP)
	$(BIN)/pytest -W error

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/simulate.py
	$(BIN)/python bench/marriage21.py
	$(BIN)/python bench/rummy51.py
	$(BIN)/python bench/patti.py
	$(BIN)/python bench/ladder.py
	$(BIN)/python bench/commit.py
	$(BIN)/python bench/broadcast.py
	$(BIN)/python bench/table_path.py
	$(BIN)/python bench/load.py

soak: $(STAMP)
	RUMMYHALL_SOAK=1 $(BIN)/pytest -W error tests

# The dependency tools live in a venv of their own (.venv-tools), apart from what the room runs on.
TOOLS := .venv-tools
TOOLS_STAMP := $(TOOLS)/.installed
LOCK := uv pip compile --quiet --generate-hashes --universal --python-version 3.11 \
	--custom-compile-command "make lock"

$(TOOLS_STAMP):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --upgrade pip
	$(TOOLS)/bin/pip install --quiet 'uv>=0.5,<1' 'pip-audit>=2.7,<3'
	touch $(TOOLS_STAMP)

# requirements.lock: the deployed set (pyproject.toml's dependencies and its build requirements)
# pinned with hashes; requirements-test.lock: the same plus the test extras. docs/operations.md
# says how to install from it; tests/test_dependencies.py checks it still matches pyproject.toml.
# Pins that still fit are kept; `make lock UPGRADE=1` moves every pin to the newest release.
BUILD_REQUIRES := $(TOOLS)/bin/python -c "import tomllib; \
	print(*tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires'], sep='\n')"

lock: $(TOOLS_STAMP)
	$(BUILD_REQUIRES) | $(TOOLS)/bin/$(LOCK) pyproject.toml - $(if $(UPGRADE),--upgrade) \
		-o requirements.lock
	$(BUILD_REQUIRES) | $(TOOLS)/bin/$(LOCK) pyproject.toml - --extra test -c requirements.lock \
		$(if $(UPGRADE),--upgrade) -o requirements-test.lock

# Known vulnerabilities in requirements.lock (pip-audit); says so when it could not check.
audit-deps: $(TOOLS_STAMP)
	$(TOOLS)/bin/python tools/audit_deps.py --pip-audit $(TOOLS)/bin/pip-audit requirements.lock

clean:
	rm -rf $(VENV) $(TOOLS) .mypy_cache .ruff_cache .pytest_cache .hypothesis
