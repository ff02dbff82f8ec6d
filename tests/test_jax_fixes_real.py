"""Every fix check_offload suggests for the example E1200 programs, pasted into the program as
written and compiled by the real TPU compiler (compile-only), must compile.

Fix (b) used to be ``jax.device_put(saved, jax.memory.Space.Device)`` for an offload made by
another frontend's ``place_to_host``: JAX still types that value as device memory, so the line
did nothing and the E1200 stayed.  The pasting here is mechanical: the fix's code line goes
before the return it names (or wraps the returned expression), in a copy of the source."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

from offload_programs import PROGRAMS, _device_sharding  # noqa: E402

from xladoctor.jax import check_offload  # noqa: E402


def _oracle() -> None:
    from xladoctor.oracle import unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())


def paste(fix: str, name: str) -> types.FunctionType:
    """The program's function with the fix's code put where its comment says."""
    source = (EXAMPLES / "offload_programs.py").read_text().splitlines()
    where = re.search(r"at (\S+):(\d+)", fix)
    assert where and where.group(1).endswith("offload_programs.py"), fix
    line = int(where.group(2)) - 1
    code = [ln for ln in fix.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(code) == 1, fix
    statement = code[0].split("  #")[0]
    if re.match(r"^\w+ = ", statement):
        indent = source[line][:len(source[line]) - len(source[line].lstrip())]
        source.insert(line, indent + statement)
    else:  # counterpart(expression): wrap the expression in the return
        inner = statement[statement.index("(") + 1:-1]
        assert inner in source[line], (fix, source[line])
        source[line] = source[line].replace(inner, statement, 1)
    module = types.ModuleType(f"pasted_{name}")
    module.__file__ = str(EXAMPLES / "offload_programs.py")
    sys.modules[module.__name__] = module
    exec(compile("\n".join(source) + "\n", f"pasted_{name}.py", "exec"), module.__dict__)
    return getattr(module, name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_suggested_fix_compiles_with_the_real_compiler(name):
    _oracle()
    from xladoctor.jax import compile_jitted

    p = PROGRAMS[name]()
    report = check_offload(p.fn, *p.args)
    assert compile_jitted(p.fn, *p.args).kind == "e1200"
    finding = report.findings[0]
    if "place_to_host" in finding.device_fix:  # another frontend's offload: no jax.device_put no-op
        assert "place_to_device(" in finding.device_fix
        assert not [ln for ln in finding.device_fix.splitlines()
                    if "jax.device_put" in ln and not ln.lstrip().startswith("#")]
    fixed_b = paste(finding.device_fix, name)
    assert compile_jitted(fixed_b, *p.args).kind == "compiles", finding.device_fix
    assert check_offload(fixed_b, *p.args).ok  # and the prediction agrees, so the fix is not suggested again
    shardings = report.suggested_out_shardings(_device_sharding())
    assert compile_jitted(p.fn, *p.args, jit_kwargs={"out_shardings": shardings}).kind == "compiles"
