#!/usr/bin/env bash
# Issue 36 item 6 on the device machine's idle CPU: `explain LOG` and `check LOG` (--json, as bench_all.py's log rows)
# against ripgrep 14.1.0 (carried as a wheel in .whl-rg: pip download --no-deps ripgrep), on one pinned core, the
# same rounds for this tree's pure Python, the base tree (.bench-before: git archive BASE src bench ...) and this
# tree's compiled core (built as bench/device_issue36.sh COMPILED=1 builds it, from the wheels in .whl-mypy; it holds
# the native newline count).  REPEAT (default 5) rounds, MB (default 500) megabytes per log; results in $OUT/logs.md.
# The commands run from a venv of the machine's python (no site-packages of its own): the base interpreter's
# site-packages hold the sandbox's _sandboxing_egress_ca.pth, which imports certifi at every start (0.09 of its
# 0.11 CPU-s per `python -c pass`, stop 50), a cost no user's interpreter pays.  BASE_PYTHON=1 keeps the base one.
set -u
REPEAT=${REPEAT:-5}
MB=${MB:-500}
pipi() { PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$@"; }
pipi /tmp/site .whl-tpu/*.whl
pipi /tmp/rg .whl-rg/*.whl
export PYTHONPATH=${PYTHONPATH:-}:/tmp/site:$PWD/src PATH=/tmp/rg/bin:$PATH
PY=python3
if [ "${BASE_PYTHON:-0}" != 1 ]; then python3 -m venv --without-pip /tmp/venv && PY=/tmp/venv/bin/python; fi
{ nproc; $PY -V; $PY -c 'import sys; print(sys.executable)'; rg --version | head -1; uptime; git log --oneline -1 2>/dev/null; } > $OUT/logs-machine.txt
if [ ! -d /tmp/cc/src ]; then
  pipi /tmp/mypy .whl-mypy/*.whl
  PYTHONPATH=/tmp/mypy:$PYTHONPATH timeout 300 python3 bench/compiled_core.py /tmp/cc > $OUT/cc-build.txt 2>&1 || { tail -5 $OUT/cc-build.txt; exit 1; }
fi
python3 -m compileall -q src .bench-before/src /tmp/cc/src > /dev/null  # no tree pays its bytecode in a round
taskset -c 1 timeout 420 $PY bench/bench_all.py --only logs --log-mb "$MB" --repeat "$REPEAT" \
  --log-src .bench-before/src --log-src /tmp/cc/src > $OUT/logs.md 2> $OUT/logs.err
cat $OUT/logs.md
