"""HLO texts with the shapes that made the analysis quadratic (issue 20), sized by one number.

* :func:`wide_root` -- a train step returning a pytree: ``n`` entry outputs, each behind the
  ``Sharding`` custom-call marker jax emits, gathered by one ROOT tuple (one value goes to the
  host and back, so the analysis runs in full).
* :func:`fan_out` -- one host tensor (a MoveToHost annotation) read by ``n`` users, all returned.
* :func:`fan_return` -- one host tensor returned ``n`` times, each output an E1200 (issue 36).
* :func:`deep_calls` -- ``n`` computations each calling the next twice (2**n paths: inlining
  it is exponential, so it must be refused past a documented bound).
* :func:`diamond_calls` -- ``n`` computations, each calling the next once from two call sites
  of the one before (a diamond per level: the call graph stays small but its paths double).
* :func:`wide_params` -- a one-line ENTRY with ``n`` parameters, all returned.

Used by ``bench_all.py`` (the shape rows) and ``compare_outputs.py`` (small sizes, to show
the IR refactor changes no output on them).
"""

from __future__ import annotations

T = "f32[8,128]{1,0}"


def wide_root(n: int) -> str:
    lines = [f"HloModule wide_root_{n}", "", "ENTRY main {", f"  p = {T} parameter(0)",
             f'  h = {T} custom-call(p), custom_call_target="annotate_device_placement", '
             'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}',
             f'  d = {T} custom-call(h), custom_call_target="annotate_device_placement", '
             'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="device"}']
    for i in range(n):
        lines.append(f"  a{i} = {T} add(d, p)")
        lines.append(f'  sh{i} = {T} custom-call(a{i}), custom_call_target="Sharding", sharding={{replicated}}')
    shapes = ", ".join([T] * n)
    lines.append(f"  ROOT t = ({shapes}) tuple({', '.join(f'sh{i}' for i in range(n))})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def fan_out(n: int) -> str:
    lines = [f"HloModule fan_out_{n}", "", "ENTRY main {", f"  p = {T} parameter(0)",
             f"  x = {T} sine(p)",
             f'  h = {T} custom-call(x), custom_call_target="annotate_device_placement", '
             'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}']
    for i in range(n):
        lines.append(f"  use{i} = {T} multiply(h, p)")
    shapes = ", ".join([T] * n)
    lines.append(f"  ROOT t = ({shapes}) tuple({', '.join(f'use{i}' for i in range(n))})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def fan_return(n: int) -> str:
    """One host tensor returned ``n`` times (a pytree whose leaves share an offloaded activation),
    with the entry layout jax writes: every output is an E1200 (issue 36)."""
    res = ", ".join([T] * n)
    lines = [f"HloModule fan_return_{n}, entry_computation_layout={{({T})->({res})}}", "", "ENTRY main {",
             f"  p = {T} parameter(0)", f"  x = {T} sine(p)",
             f'  h = {T} custom-call(x), custom_call_target="annotate_device_placement", '
             'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}',
             f"  ROOT t = ({res}) tuple({', '.join(['h'] * n)})", "}"]
    return "\n".join(lines) + "\n"


def deep_calls(n: int) -> str:
    """``c0`` is a leaf; ``c{k}`` calls ``c{k-1}`` twice; the entry calls ``c{n-1}``."""
    lines = [f"HloModule deep_calls_{n}", "", "c0 {", f"  c0.p = {T} parameter(0)", f"  ROOT c0.r = {T} sine(c0.p)",
             "}", ""]
    for k in range(1, n):
        lines += [f"c{k} {{", f"  c{k}.p = {T} parameter(0)",
                  f"  c{k}.a = {T} call(c{k}.p), to_apply=c{k - 1}",
                  f"  c{k}.b = {T} call(c{k}.a), to_apply=c{k - 1}",
                  f"  ROOT c{k}.r = {T} add(c{k}.a, c{k}.b)", "}", ""]
    lines += _offloading_entry(f"c{n - 1}")
    return "\n".join(lines) + "\n"


def diamond_calls(n: int) -> str:
    """Level ``k`` has two computations ``l{k}`` and ``r{k}``, both calling ``l{k-1}`` and ``r{k-1}``."""
    lines = [f"HloModule diamond_calls_{n}", ""]
    for side in ("l", "r"):
        lines += [f"{side}0 {{", f"  {side}0.p = {T} parameter(0)", f"  ROOT {side}0.r = {T} sine({side}0.p)", "}", ""]
    for k in range(1, n):
        for side in ("l", "r"):
            c = f"{side}{k}"
            lines += [f"{c} {{", f"  {c}.p = {T} parameter(0)",
                      f"  {c}.a = {T} call({c}.p), to_apply=l{k - 1}",
                      f"  {c}.b = {T} call({c}.p), to_apply=r{k - 1}",
                      f"  ROOT {c}.r = {T} add({c}.a, {c}.b)", "}", ""]
    lines += _offloading_entry(f"l{n - 1}")
    return "\n".join(lines) + "\n"


def _offloading_entry(callee: str) -> list[str]:
    """An ENTRY moving its parameter to the host and back before calling ``callee`` (so the
    analysis has an offload to follow and inlines the calls first)."""
    return ["ENTRY main {", f"  p = {T} parameter(0)",
            f'  h = {T} custom-call(p), custom_call_target="annotate_device_placement", '
            'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}',
            f'  d = {T} custom-call(h), custom_call_target="annotate_device_placement", '
            'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="device"}',
            f"  ROOT r = {T} call(d), to_apply={callee}", "}"]


def wide_params(n: int) -> str:
    """One line per computation part: ``n`` parameters declared and returned, as a flattened pytree gives."""
    params = " ".join(f"p{i} = f32[4]{{0}} parameter({i})" for i in range(n))
    names = ", ".join(f"p{i}" for i in range(n))
    shapes = ", ".join(["f32[4]{0}"] * n)
    return f"HloModule wide_params_{n}\nENTRY main {{ {params} ROOT t = ({shapes}) tuple({names}) }}\n"


SHAPES = {"wide_root": wide_root, "fan_out": fan_out, "fan_return": fan_return, "deep_calls": deep_calls,
          "diamond_calls": diamond_calls, "wide_params": wide_params}
