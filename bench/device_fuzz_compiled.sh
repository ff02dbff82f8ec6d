#!/usr/bin/env bash
# Fuzz the opt-in compiled core on the device machine's CPU (issue 36 item 4): build it with mypyc from this
# tree (.whl-mypy, see device_issue36.sh) and run bench/fuzz_campaign.py with the compiled package first on the
# path, every worker comparing with the pure-Python answers and jaxlib where the campaign does.  Stop 51 found
# a compiled-only crash this way that the compiled core's comparison test had no module for
# (tests/data/fuzz_found/README.md).  SECONDS_FUZZ (default 100), WORKERS (12), SEED (5102).  Carry .whl-tpu
# and .whl-mypy; results under $OUT (cc-build.txt, fuzz.txt, fuzz.json).
set -u
PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl-tpu/*.whl || exit 1
PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/mypy .whl-mypy/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/src
rm -rf /tmp/cc
PYTHONPATH=/tmp/mypy:$PYTHONPATH timeout 300 python3 bench/compiled_core.py /tmp/cc > $OUT/cc-build.txt 2>&1 || { tail -5 $OUT/cc-build.txt; exit 1; }
s=${SECONDS_FUZZ:-100}
PYTHONPATH=/tmp/cc/src:/tmp/site timeout $((s + 90)) python3 bench/fuzz_campaign.py --seconds "$s" --workers "${WORKERS:-12}" \
  --seed "${SEED:-5102}" --json $OUT/fuzz.json > $OUT/fuzz.txt 2>&1
echo "rc=$?"
tail -25 $OUT/fuzz.txt
