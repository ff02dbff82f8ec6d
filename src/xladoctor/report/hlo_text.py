"""The text of ``xladoctor hlo``: what a module holds at a glance (its summary, from
:mod:`xladoctor.triage.hlo_summary`), after the parser's layout warnings.  Words from
``labels/en.toml`` ``[hlo]`` (aligned in columns there)."""

from __future__ import annotations

from typing import Any

from ..base.escape import escape_field
from ..base.labels import glossary, label
from ..base.units import bytes_text
from ..findings.model import Finding, Report
from ..ir.shape import HOST_MEMORY_SPACE, format_shape_index
from .finding_text import layout_warning


def summary_text(report: Report) -> str:
    """``hlo``'s text of its Report: the layout warnings (its findings), then the summary."""
    return hlo_text(_summary_of(report), report.findings)


def summary_document(report: Report) -> dict[str, Any]:
    """``hlo --json``'s document body (docs/json.md ``## hlo``): the summary as it is."""
    return {"command": "hlo", **_summary_of(report)}


def _summary_of(report: Report) -> dict[str, Any]:
    from ..findings.details import ModuleSummary

    if not isinstance(report.details, ModuleSummary):
        raise TypeError(f"{report.command}: not the Report of a module's summary")
    return report.details.summary


def hlo_text(summary: dict[str, Any], warnings: tuple[Finding, ...] = ()) -> str:
    """The layout warnings (two lines each), then the summary (:func:`render_text`)."""
    return "".join(line + "\n" for f in warnings for line in layout_warning(f)) + render_text(summary)


def _host_mark(entry: dict[str, Any], is_tuple: bool) -> str:
    """``[host]`` for an array in host memory; for a tuple, which of its leaves are."""
    hosts = entry.get("host_leaves") or []
    if not hosts:
        return ""
    if not is_tuple:
        return "  " + label("hlo.host")
    return "  " + label("hlo.host_leaves", leaves=", ".join(format_shape_index(tuple(i)) for i in hosts))


def render_text(s: dict[str, Any]) -> str:
    """The ``hlo`` summary; words from ``labels/en.toml`` ``[hlo]`` (aligned in columns there)."""
    ecl = s["entry_computation_layout"]
    lines = [label("hlo.module", name=s["name"]),
             label("hlo.computations", n=len(s["computations"]), entry=s["entry"]),
             label("hlo.instructions", n=f"{s['instruction_count']:,}"),
             label("hlo.entry_layout" if ecl["explicit"] else "hlo.entry_layout_derived")]
    for p in ecl["parameters"]:
        name = f" {p['op_name']!r}" if "op_name" in p else ""
        lines.append("  " + label("hlo.param", index=f"{p['index']:<4}", shape=p["shape"], name=name))
        lines.append(_sizes_line(p))
    r = ecl["result"]
    lines.append("  " + label("hlo.result", shape=r["shape"]))
    lines.append(_sizes_line(r))
    if r.get("names"):  # the StableHLO's jax.result_info, each output by its one name (glossary.output)
        lines.append(" " * 13 + ", ".join(glossary.output(format_shape_index(tuple(n["index"])), "en", n["name"])
                                          for n in r["names"]))
    lines.append(label("hlo.opcodes", counts=", ".join(f"{k} {v}" for k, v in list(s["opcode_counts"].items())[:20])
                       + (" ..." if len(s["opcode_counts"]) > 20 else "")))
    if s["custom_calls"]:
        lines.append(label("hlo.custom_calls",
                           counts=", ".join(f"{escape_field(k)} {v}" for k, v in s["custom_calls"].items())))
    if s.get("stablehlo"):
        how = label("check.kinds_beside" if s["stablehlo"]["found"] == "beside" else "check.kinds_option")
        from .companion_text import companion_shown

        lines.append(label("hlo.stablehlo", path=companion_shown(s["stablehlo"]), how=how))
    if s["memory_spaces"]:
        lines.append(label("hlo.memory_spaces", counts=", ".join(
            label("hlo.memory_space_host" if int(k) == HOST_MEMORY_SPACE else "hlo.memory_space", space=k, n=v)
            for k, v in s["memory_spaces"].items())))
    return "\n".join(lines)


def _sizes_line(entry: dict[str, Any]) -> str:
    host = _host_mark(entry, entry["shape"].startswith("("))
    if entry["logical_bytes"] is None:  # an unbounded ('?') dimension: no byte size
        return " " * 13 + label("hlo.sizes_unbounded") + host
    return " " * 13 + label("hlo.sizes", logical=bytes_text(entry["logical_bytes"]),
                            physical=bytes_text(entry["physical_bytes"])) + host
