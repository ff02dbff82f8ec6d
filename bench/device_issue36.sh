#!/usr/bin/env bash
# Issue 36 on the device machine's idle CPU: a base tree (.bench-before: git archive BASE src bench; stop 44: 2a2cd44) against this tree,
# jaxlib's parse in the same rounds.
set -u
PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl-tpu/*.whl
export PYTHONPATH=${PYTHONPATH:-}:/tmp/site:$PWD/src
{ nproc; python3 -V; uptime; git log --oneline -1 2>/dev/null; } > $OUT/machine.txt
[ "${COMPILED:-0}" = 1 ] || timeout 330 python3 bench/bench_before_after.py .bench-before . --kinds train_scanned train_unrolled jax_entry --sizes 100000 --pairs --jaxlib --rounds 3 --repeat 5 --wall > $OUT/ba100k.md 2> $OUT/ba100k.err

cat $OUT/*.md
# The opt-in compiled core (mypyc, carried as wheels in .whl-mypy) against pure Python, same rounds.
if [ "${COMPILED:-0}" = 1 ] && command -v gcc >/dev/null; then
  PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/mypy .whl-mypy/*.whl
  PYTHONPATH=/tmp/mypy:$PYTHONPATH timeout 200 python3 bench/compiled_core.py /tmp/cc > $OUT/cc-build.txt 2>&1
  timeout 250 python3 bench/bench_before_after.py . /tmp/cc --kinds train_unrolled jax_entry --sizes 100000 --pairs --jaxlib --rounds 3 --repeat 3 --wall > $OUT/cc100k.md 2> $OUT/cc100k.err
  cat $OUT/cc100k.md
fi
