"""Rendering a HostOffloadResult: the text report and the JSON document (docs/json.md ``## offload``)."""

from __future__ import annotations

from typing import Any

from ..ir.module import HloModule
from ..ir.shape import format_shape_index
from ..labels import label
from .fixes import FixSuggestion
from .result import XLA_VERSION_MODELLED, HostOffloadResult, OutputMismatch, PathHop
from .rules import RULES, SHIPPED


def _loc(loc) -> str | None:
    return str(loc) if loc is not None else None


def hop_json(h: PathHop) -> dict[str, Any]:
    return {"instruction": h.instruction, "shape_index": list(h.shape_index), "opcode": h.opcode,
            "shape": h.shape, "computation": h.computation, "location": _loc(h.location)}


def error_json(e: OutputMismatch, fix: FixSuggestion | None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "code": "E1200", "message": e.full_message, "start": e.start, "context": e.context,
        "output_index": list(e.output_index), "output_layout": e.output_layout, "customized": e.customized,
        "origin": e.origin, "origin_instruction": e.origin_instruction, "first": e.first,
        "trace": [{"instruction": h.instruction, "shape_index": list(h.shape_index)} for h in e.trace],
        "path": [hop_json(h) for h in e.path],
    }
    if fix is not None:
        doc["fix"] = {
            "host": {"entry_result_layout": fix.host_layout, "flat_output": fix.flat_output,
                     "result_name": fix.result_name, "jax": fix.host_jax},
            "device": {"after_instruction": fix.returned_value, "location": _loc(fix.returned_location),
                       "jax": fix.device_jax},
        }
    return doc


def result_json(result: HostOffloadResult, fixes: list[FixSuggestion]) -> dict[str, Any]:
    by_index = {tuple(f.output_index): f for f in fixes}
    errors = [error_json(e, by_index.get(e.output_index)) for e in result.errors]
    first = next((d for d, e in zip(errors, result.errors) if e is result.error), None)
    return {
        "command": "offload",
        "model": XLA_VERSION_MODELLED if result.rule == SHIPPED else RULES[result.rule].xla,
        "rule": result.rule,
        "outcome": result.outcome,
        "error": first,
        "errors": errors,
        "failures": [{"status": f.status, "message": f.message, "instruction": f.instruction, "first": f.first}
                     for f in result.failures],
        "host_positions": [{"instruction": n, "shape_index": list(i)} for n, i in result.host_positions],
        "host_compute": [{"instruction": h.instruction, "opcode": h.opcode, "reason": h.reason,
                          "location": _loc(h.location)} for h in result.host_compute],
        "inserted": [{"kind": i.kind, "name": i.name, "operand": i.operand, "user": i.user,
                      "operand_number": i.operand_number, "replaces": i.replaces} for i in result.inserted],
        "dynamified_slices": list(result.dynamified_slices),
        "dynamic_update_slices": [{"instruction": d.instruction, "update_on_host": d.update_on_host,
                                   "destination_on_host": d.destination_on_host, "action": d.action}
                                  for d in result.dynamic_update_slices],
        "dropped_offloads": [{"move_to_host": d.move_to_host, "reason": d.reason, "users": list(d.users),
                              "location": _loc(d.location)} for d in result.dropped_offloads],
        "outputs_moved_to_host": [{"output_index": list(o.output_index), "old_layout": o.old_layout,
                                   "new_layout": o.new_layout, "start": o.start}
                                  for o in result.outputs_moved_to_host],
        "walks": [{"start": w.start, "shape_index": list(w.shape_index), "origin": w.origin,
                   "insert_copy_before": w.insert_copy_before} for w in result.walks],
        "inlined_calls": list(result.inlined_calls),
        "legalize": legalize_json(result),
        "warnings": list(result.warnings),
        "vlog": list(result.vlog),
    }


def legalize_json(result: HostOffloadResult) -> dict[str, Any] | None:
    """What the HostOffloadLegalize pre-pass did (null when it was not run)."""
    legal = result.legalize
    if legal is None:
        return None
    return {
        "changed": legal.changed,
        "starts": list(legal.starts),
        "moves": [{"copy": m.copy, "action": m.action, "start": m.start, "new_copies": list(m.new_copies),
                   "after": list(m.after), "shapes": [list(s) for s in m.shapes]} for m in legal.moves],
        "rerouted": list(legal.rerouted),
        "notes": [{"start": n.start, "phase": n.phase, "message": n.message, "instruction": n.instruction}
                  for n in legal.notes],
    }


def _hop_text(h: PathHop) -> str:
    idx = format_shape_index(h.shape_index)
    where = f"  {h.location}" if h.location else ""
    comp = f" [{h.computation}]" if h.computation else ""
    return f"{h.instruction}{idx if h.shape_index else ''} = {h.shape} {h.opcode}{comp}{where}"


def render_text(source: str, module: HloModule, result: HostOffloadResult, fixes: list[FixSuggestion],
                trace: bool) -> str:
    """The ``offload`` report: verdict, each offending output with its path and fixes, failures, then
    what ends in host memory.  Words from ``labels/en.toml`` ``[offload]`` (the command prints English)."""
    out: list[str] = []
    mode = RULES[result.rule].label
    if result.outcome == "ok" and not result.errors and not result.failures:
        out.append(label("offload.none_predicted", source=source, mode=mode))
    if result.errors:
        n = len(result.errors)
        out.append(label("offload.predicted_one" if n == 1 else "offload.predicted_many", source=source, n=f"{n:,}",
                         mode=mode))
    by_index = {tuple(f.output_index): f for f in fixes}
    for e in result.errors:
        out.append("")
        out.extend(_error_lines(e, by_index.get(e.output_index), result.outcome))
    for failure in result.failures:
        out.append("")
        first = f" [{label('offload.stops_here')}]" if failure.first else ""
        what = (label("offload.check_failure") if failure.status == "CHECK"
                else label("offload.would_fail", status=failure.status))
        at = f" {label('offload.at_instruction', instruction=failure.instruction)}" if failure.instruction else ""
        out.append(f"{what}{first}: {failure.message}{at}")
    if trace and result.vlog:
        out.append("")
        out.append(label("offload.vmodule"))
        out.extend("  " + line for line in result.vlog)
    out.append("")
    out.extend(_host_memory_lines(result))
    return "\n".join(out) + "\n"


def _error_lines(e: OutputMismatch, f: FixSuggestion | None, outcome: str) -> list[str]:
    """One offending output: its heading, XLA's message, the path and the two fixes."""
    tag = label("offload.stops_here") if e.first else label("offload.also_offending")
    if e.first and outcome != "E1200":
        tag = label("offload.follows_earlier_failure")
    index = format_shape_index(e.output_index)
    out = [label("offload.output", index=index, layout=e.output_layout, tag=tag)]
    out.extend("  " + line for line in e.full_message.splitlines())
    out.append("  " + label("offload.path_from", origin=e.origin))
    out.extend("    " + _hop_text(h) for h in e.path)
    if f is not None:
        out.append("  " + label("offload.fix_host", index=index, layout=f.host_layout, jax=f.host_jax))
        out.append("  " + label("offload.fix_device", value=f.returned_value, jax=f.device_jax))
    return out


_LEGALIZE_LABELS = {"moved-down": "offload.legalize_moved_down", "moved-up": "offload.legalize_moved_up"}


def _host_memory_lines(result: HostOffloadResult) -> list[str]:
    """What ends in host memory, host compute, rewritten slices, dropped offloads, legalized copies, warnings."""
    hp = ", ".join(n + (format_shape_index(i) if i else "") for n, i in result.host_positions)
    out = [label("offload.host_memory", names=hp or label("offload.nothing"))]
    if result.host_compute:
        out.append(label("offload.host_compute",
                         items=", ".join(f"{h.instruction} ({h.opcode})" for h in result.host_compute)))
    if result.dynamified_slices:
        out.append(label("offload.dynamified", names=", ".join(result.dynamified_slices)))
    out.extend(label("offload.dynamic_update_slice", instruction=d.instruction, action=d.action)
               for d in result.dynamic_update_slices)
    out.extend(label("offload.dropped", name=d.move_to_host, reason=d.reason) for d in result.dropped_offloads)
    for m in (result.legalize.moves if result.legalize is not None else []):
        where = (label("offload.legalize_after", names=", ".join(m.after)) if m.after
                 else label("offload.legalize_removed"))
        out.append(label(_LEGALIZE_LABELS.get(m.action, "offload.legalize_kept"), copy=m.copy, where=where))
    out.extend(label("offload.moved_output", index=format_shape_index(o.output_index), old=o.old_layout,
                     new=o.new_layout) for o in result.outputs_moved_to_host)
    if result.warnings:
        out.append(label("offload.warnings"))
        out.extend("  " + w for w in result.warnings)
    return out
