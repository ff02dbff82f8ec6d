"""Rendering a HostOffloadResult: the text report and the JSON document (docs/json.md ``## offload``)."""

from __future__ import annotations

from typing import Any

from ..ir.module import HloModule
from ..ir.shape import format_shape_index
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
    out: list[str] = []
    mode = RULES[result.rule].label
    if result.outcome == "ok" and not result.errors and not result.failures:
        out.append(f"{source}: no host-offload error predicted ({mode}).")
    by_index = {tuple(f.output_index): f for f in fixes}
    if result.errors:
        n = len(result.errors)
        out.append(f"{source}: E1200 predicted for {n:,} output{'' if n == 1 else 's'} ({mode}).")
    for e in result.errors:
        out.append("")
        tag = "XLA stops here" if e.first else "also offending"
        if e.first and result.outcome != "E1200":
            tag = "would follow an earlier failure"
        out.append(f"output {format_shape_index(e.output_index)} ({e.output_layout}) [{tag}]")
        out.extend("  " + line for line in e.full_message.splitlines())
        out.append(f"  from {e.origin}; path:")
        out.extend("    " + _hop_text(h) for h in e.path)
        f = by_index.get(e.output_index)
        if f is not None:
            out.append(f"  fix (a), keep on host: entry result {format_shape_index(e.output_index)} -> "
                       f"{f.host_layout}; JAX: {f.host_jax}")
            out.append(f"  fix (b), back to device: move-to-device after {f.returned_value}; JAX: {f.device_jax}")
    for failure in result.failures:
        out.append("")
        first = " [XLA stops here]" if failure.first else ""
        what = "XLA would abort (CHECK failure)" if failure.status == "CHECK" else f"XLA would fail: {failure.status}"
        out.append(f"{what}{first}: {failure.message}" + (f" (at {failure.instruction})" if failure.instruction else ""))
    if trace and result.vlog:
        out.append("")
        out.append("--vmodule=host_offloader=1 would print:")
        out.extend("  " + line for line in result.vlog)
    out.append("")
    hp = ", ".join(n + (format_shape_index(i) if i else "") for n, i in result.host_positions) or "none"
    out.append(f"host memory: {hp}")
    if result.host_compute:
        out.append("host compute: " + ", ".join(f"{h.instruction} ({h.opcode})" for h in result.host_compute))
    if result.dynamified_slices:
        out.append("slices turned into dynamic slices: " + ", ".join(result.dynamified_slices))
    for d in result.dynamic_update_slices:
        out.append(f"dynamic-update-slice {d.instruction}: {d.action}")
    for dropped in result.dropped_offloads:
        out.append(f"offload dropped: {dropped.move_to_host} ({dropped.reason})")
    for m in (result.legalize.moves if result.legalize is not None else []):
        if m.action == "moved-down":
            where = f"after {', '.join(m.after)}" if m.after else "removed (the chain is not recognised past it)"
            out.append(f"HostOffloadLegalize: layout-changing copy {m.copy} moved out of host memory: {where}")
        elif m.action == "moved-up":
            out.append(f"HostOffloadLegalize: layout-changing copy {m.copy} moved above its move-to-host")
        else:
            out.append(f"HostOffloadLegalize: layout-changing copy {m.copy} stays in host memory")
    for o in result.outputs_moved_to_host:
        out.append(f"output {format_shape_index(o.output_index)} silently moved to host: {o.old_layout} -> "
                   f"{o.new_layout}")
    if result.warnings:
        out.append("warnings:")
        out.extend("  " + w for w in result.warnings)
    return "\n".join(out) + "\n"
