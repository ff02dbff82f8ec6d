#!/usr/bin/env bash
# Issue 36 on the device machine's idle CPU: a base tree (.bench-before: git archive BASE src bench; stop 44: 2a2cd44)
# against this tree, jaxlib's parse in the same rounds.  ROUNDS (default 3) rounds at 100k and on the train steps,
# wall seconds (the machine's process clock ticks at 10 ms); BIG=1 adds jax_entry at 1M (one round, CPU seconds).
# COMPILED=1 instead builds the opt-in compiled core (mypyc, carried as wheels in .whl-mypy) and compares it with
# this tree's pure Python, same rounds; COMPILED_BASE=1 compares the base tree's compiled core with this tree's.  .whl-mypy (cp311 manylinux wheels, pip download --no-deps): mypy, librt,
# ast-serialize (mypy 2.4's parser), mypy_extensions, typing_extensions, pathspec, and setuptools (the device's own
# refuses pyproject's SPDX project.license).
set -u
ROUNDS=${ROUNDS:-3}
PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl-tpu/*.whl
export PYTHONPATH=${PYTHONPATH:-}:/tmp/site:$PWD/src
{ nproc; python3 -V; uptime; git log --oneline -1 2>/dev/null; } > $OUT/machine.txt
before=.bench-before
after=.
if [ "${COMPILED:-0}" = 1 ]; then
  command -v gcc >/dev/null || { echo "no gcc" > $OUT/cc-build.txt; exit 1; }
  PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/mypy .whl-mypy/*.whl
  PYTHONPATH=/tmp/mypy:$PYTHONPATH timeout 300 python3 bench/compiled_core.py /tmp/cc > $OUT/cc-build.txt 2>&1 || { tail -5 $OUT/cc-build.txt; exit 1; }
  before=. after=/tmp/cc
  if [ "${COMPILED_BASE:-0}" = 1 ]; then  # both trees compiled: .bench-before also holds setup.py, pyproject.toml, README.md
    PYTHONPATH=/tmp/mypy:$PYTHONPATH timeout 300 python3 .bench-before/bench/compiled_core.py /tmp/cc_before > $OUT/cc-build-before.txt 2>&1 || { tail -5 $OUT/cc-build-before.txt; exit 1; }
    before=/tmp/cc_before
  fi
fi
timeout 330 python3 bench/bench_before_after.py $before $after --kinds train_scanned train_unrolled jax_entry --sizes 100000 \
  --pairs --jaxlib --rounds "$ROUNDS" --repeat 3 --wall > $OUT/ba100k.md 2> $OUT/ba100k.err
[ "${BIG:-0}" = 1 ] && timeout 250 python3 bench/bench_before_after.py $before $after --kinds jax_entry --sizes 1000000 \
  --pairs --jaxlib --rounds 1 > $OUT/ba1m.md 2> $OUT/ba1m.err
cat $OUT/*.md
