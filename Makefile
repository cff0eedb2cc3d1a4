# Every target creates and reuses .venv and installs what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: serve test test-on-cluster test-on-cluster-7 bench bench-engine bench-load bench-breakdown bench-frames bench-layers bench-live bench-attack bench-bots bench-browser bench-assists bench-accounts bench-ratings bench-daily bench-solver bench-spectators bench-scale bench-pubsub bench-soak lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

serve: $(STAMP)
	$(VENV)/bin/solitaire-arena serve

# The suite mostly waits on sockets, servers, timers and a browser: four workers, even on
# two cores (7 min 45 s here against 8 min 50 s with three; the cores are busy about
# three quarters of the time), each test file whole on one of them (its module fixtures,
# such as the browser, made once).
TEST_WORKERS ?= 4
PYTEST := $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

test: $(STAMP)
	$(PYTEST)

# The same suite with every node on a Redis Cluster of 3 masters (loopback) instead of
# one Redis server: every feature with its keys spread over the slots.
test-on-cluster: $(STAMP)
	SA_TEST_REDIS=cluster $(PYTEST)

# The same on a cluster of Redis 7 (redis-server on PATH), whose nodes use sharded pub/sub.
test-on-cluster-7: $(STAMP)
	SA_TEST_REDIS=cluster7 $(PYTEST)

# Both benchmarks: the engine alone, then the server under load (about a minute,
# loopback only; it prints one table with the targets).
bench: bench-engine bench-load

bench-engine: $(STAMP)
	$(PY) bench/engine.py

bench-load: $(STAMP)
	$(PY) bench/load.py --racers 1000 --seconds 10

# What writing one frame costs: websockets' send against the node's own frames.
bench-frames: $(STAMP)
	$(PY) bench/frames.py --frames 200000

# Where a move's time goes: nodes with parts of a move taken away, against the echo.
bench-breakdown: $(STAMP)
	$(PY) bench/breakdown.py --racers 1000 --seconds 8

# Where a node's CPU goes, layer by layer, sampled with py-spy during a flat-out run.
bench-layers: $(STAMP)
	$(PY) bench/layers.py --racers 1000 --seconds 8

# The Live list built with 200 races running (docs/capacity.md).
bench-live: $(STAMP)
	$(PY) bench/live.py --races 200

# One race's racers without spectators, then with 1,000 watching; memory per spectator.
bench-spectators: $(STAMP)
	$(PY) bench/load.py --spectators 1000 --only-spectators --seconds 30

# Idle connections' memory, then 1, 2 and 3 nodes on one Redis (docs/capacity.md).
bench-scale: $(STAMP)
	$(PY) bench/scale.py --idle 10000 --nodes 3

# Classic against sharded pub/sub on a cluster of Redis 7 (redis-server on PATH).
bench-pubsub: $(STAMP)
	$(PY) bench/pubsub.py --racers 200 --think 0.1 --seconds 10

# 30 minutes of bots racing: memory, tasks and Redis keys sampled (not in `make test`).
bench-soak: $(STAMP)
	$(PY) bench/soak.py --minutes 30 --bots 40

# Bot strategies offline (engine only): wins and mean score per game and strategy over
# 30 seeded deals (about 30 seconds on one core; one markdown table).
bench-bots: $(STAMP)
	$(PY) bench/bots.py --seeds 30

# Honest racers' ack latency with no attackers, then while 50 hostile connections attack
# (about 40 seconds, loopback only; one table with the target).
bench-attack: $(STAMP)
	$(PY) bench/attack.py

# A move's click-to-redraw time in headless Chromium, and the page's first load.
bench-browser: $(STAMP)
	$(PY) bench/browser.py

# Undo's cost in the engine, a hint's search time, and hints' effect on move latency.
bench-assists: $(STAMP)
	$(PY) bench/assists.py

# A password hash's cost, logins/s, and move latency during a login flood.
bench-accounts: $(STAMP)
	$(PY) bench/accounts.py

# Leaderboard reads with 100,000 rated players, and the time to end and rate an 8-racer race.
bench-ratings: $(STAMP)
	$(PY) bench/ratings.py

# A day's board of 10,000 attempts: top-100 and own-rank reads per second.
bench-daily: $(STAMP)
	$(PY) bench/daily.py

# The full-information solver: won / proved lost / gave up and time per deal over 50 seeds
# per game, and the time to choose a daily deal over 20 simulated days (a minute or two).
bench-solver: $(STAMP)
	$(PY) bench/solver.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
