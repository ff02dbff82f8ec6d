"""One options object for every route (issue 37 step 4): the commands' flags become one frozen
``route.options.Options``; the older names build the same value from their argument orders."""

from __future__ import annotations

import argparse
import pickle
from dataclasses import FrozenInstanceError

import pytest

from xladoctor.route.options import Options


def _namespace(**flags) -> argparse.Namespace:
    base = {"rule": "shipped", "disable_host_compute": False, "full": False, "confirm": False, "topology": "v5e:1x1",
            "run": False, "seed": 0}
    return argparse.Namespace(**{**base, **flags})


def test_check_flags_become_one_value():
    opts = Options.from_args(_namespace(rule="unmerged-pr-36525", disable_host_compute=True), "fa", parallel_logs=True)
    assert opts == Options(rule="unmerged-pr-36525", lang="fa", disable_host_compute=True, parallel_logs=True)
    # --confirm analyses every module (as --full) and names the topology; --run adds its seed
    confirming = Options.from_args(_namespace(confirm=True, run=True, seed=7), "en")
    assert confirming.full and confirming.confirm_topology == "v5e:1x1" and confirming.confirm_run == 7
    assert Options.from_args(_namespace(confirm=True), "en").confirm_run is None
    # a command without a flag (offload has no --full) keeps the default
    assert Options.from_args(argparse.Namespace(rule="shipped", disable_host_compute=False), "en") == Options()


def test_companion_and_platform_are_per_module():
    run = Options(rule="shipped", lang="en", disable_host_compute=True)
    module = run.with_companion("m.mlir", "beside")
    assert run.stablehlo_path is None and module.companion_json() == {"path": "m.mlir", "found": "beside"}
    assert module.command_args() == ("--disable-host-compute", "--stablehlo", "m.mlir")
    assert module.with_companion(None, "beside").companion_json() is None
    assert run.for_platform() is run  # no --confirm: predicted for TPU
    assert Options(confirm_topology="h100").for_platform().platform == "cuda"


def test_frozen_keyword_only_and_sent_to_workers_as_is():
    opts = Options(lang="fa", parallel_logs=True)
    with pytest.raises(FrozenInstanceError):
        opts.lang = "en"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Options("shipped")  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(opts)) == opts
