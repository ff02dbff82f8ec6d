"""``xladoctor inputs EXPECTED --supplied OTHER.hlo | --supplied-shapes FILE``: E0102 before it happens.

Compares what a compiled executable expects (an HLO module's entry computation
layout, or a file of shapes) with what is supplied (another compile's entry
layout, or one shape per line), reports every mismatching parameter (XLA stops
at the first), explains the sizes, and prints what each runtime would say.
Exit 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError, UsageError
from ..inputs.compare import ExpectedParameter, InputCheck, can_pair_by_name, check_inputs
from ..inputs.explanation import fixes, padding_phrase, report_lines, summary
from ..inputs.from_module import expected_from_module, names_are_metadata, supplied_from_module
from ..inputs.shapes_file import parse_shapes_file
from ..ir.module import HloModule
from ..pipeline import diagnostics, inputs_findings
from ..report.escape import escape_field
from ..syntax.hlo_parser import parse_module
from ._common import located, print_json, read_input

NAME = "inputs"
HELP = "check an executable's input layouts against supplied buffers or another compile (E0102)"
ORDER = 40
DESCRIPTION = __doc__.splitlines()[0]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expected", metavar="EXPECTED",
                        help="compiled HLO module text (its entry_computation_layout), a shapes file, or -")
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--supplied", metavar="OTHER.hlo", help="another compiled module whose entry layout supplies "
                     "the buffers (the compile that wrote a checkpoint, another XLA version or topology)")
    src.add_argument("--supplied-shapes", metavar="FILE",
                     help="one supplied shape per line ('# comments', optional 'name: shape', optional 'size=N')")
    parser.add_argument("--pair", choices=("auto", "index", "name"), default="auto",
                        help="pair buffers with parameters by position (as runtimes do) or by argument name "
                             "(auto: by name when both sides name every parameter)")
    parser.add_argument("--executable", metavar="NAME", default=None,
                        help="executable name for the TPU message (default: the module name)")
    parser.add_argument("--replica", type=int, default=None, help="replica for the TPU message suffix")
    parser.add_argument("--partition", type=int, default=None, help="partition for the TPU message suffix")
    parser.add_argument("--json", action="store_true", help="machine-readable output (see docs/json.md)")
    parser.add_argument("--html", metavar="OUT",
                        help="also write a self-contained HTML report: each parameter's layouts drawn side by side "
                             "(docs/html-report.md)")


def _load_expected(text: str, source: str) -> tuple[list[ExpectedParameter], HloModule | None, bool]:
    if text.lstrip().startswith("HloModule"):
        module = parse_module(text, source)
        return expected_from_module(module), module, names_are_metadata(module)
    buffers = parse_shapes_file(text, source)
    return [ExpectedParameter(i, b.shape, b.name) for i, b in enumerate(buffers)], None, all(b.name for b in buffers)


def run_inputs(args: argparse.Namespace) -> tuple[InputCheck, str, HloModule | None]:
    """The comparison, the expected side's name and (when it is HLO) its module, for findings' lines."""
    if args.expected == "-" and (args.supplied == "-" or args.supplied_shapes == "-"):
        raise UsageError("only one input can be read from stdin")
    exp_text, exp_source = read_input(args.expected)
    expected, exp_module, expected_named = _load_expected(exp_text, exp_source)
    module_name = exp_module.name if exp_module is not None else None
    if args.supplied is not None:
        text, source = read_input(args.supplied)
        module = parse_module(text, source)
        supplied = supplied_from_module(module)
        supplied_named = names_are_metadata(module)
    else:
        text, source = read_input(args.supplied_shapes)
        supplied = parse_shapes_file(text, source)
        supplied_named = all(s.name for s in supplied)
    pairing = args.pair
    if pairing == "auto":
        pairing = "name" if expected_named and supplied_named and can_pair_by_name(expected, supplied) else "index"
    elif pairing == "name" and not can_pair_by_name(expected, supplied):
        raise UsageError("--pair name needs a unique name for every parameter on both sides")
    # A '?' dimension has no size: say where, in whichever input spells one.
    where = (exp_text, exp_source) if "?" in exp_text or "?" not in text else (text, source)
    with located(*where):
        check = check_inputs(expected, supplied, args.executable or module_name or "unknown",
                             args.replica, args.partition, pairing)
    return check, exp_source, exp_module


def _padding_json(rows) -> list[dict]:
    return [{"dim": p.dim, "size": p.size, "padded_size": p.padded_size, "tile_entry": p.tile_entry,
             "physical_position": p.physical_position, "combined": p.combined} for p in rows]


def check_to_json(check: InputCheck, source: str | None = None, module: HloModule | None = None) -> dict:
    """The ``inputs`` JSON document body (see docs/json.md); ``source``/``module`` name and hold the
    expected side, for the findings' locations."""
    mismatches = []
    for m in check.mismatches:
        mismatches.append({
            "index": m.index,
            "supplied_index": m.supplied.index,
            "name": m.expected.name,
            "supplied_name": m.supplied.name,
            "instruction": m.expected.instruction,
            "kind": m.kind,
            "expected": {"shape": str(m.expected.shape), "logical_bytes": m.expected_logical_bytes,
                         "physical_bytes": m.expected_physical_bytes, "jax_layout": m.expected_jax_layout,
                         "padding": _padding_json(m.expected_padding),
                         "padding_text": padding_phrase(m.expected_padding, m.expected.shape)},
            "supplied": {"shape": str(m.supplied.shape), "logical_bytes": m.supplied_logical_bytes,
                         "physical_bytes": m.supplied_physical_bytes, "actual_bytes": m.supplied.actual_bytes,
                         "jax_layout": m.supplied_jax_layout, "padding": _padding_json(m.supplied_padding),
                         "padding_text": padding_phrase(m.supplied_padding, m.supplied.shape)},
            "differences": [{"attribute": d.attribute, "expected": d.expected, "supplied": d.supplied}
                            for d in m.differences],
            "expansion": m.expansion,
            "runtimes": {v.runtime: {"accepts": v.accepts, "compares": v.compares,
                                     "expected": v.expected_value, "supplied": v.supplied_value}
                         for v in m.verdicts},
            "summary": summary(m),
            "notes": list(m.notes),
            "hidden_layout_candidates": list(m.hidden_layout_candidates),
            "fixes": [{"kind": f.kind, "text": f.text, "code": f.code} for f in fixes(m)],
        })
    return {"command": "inputs", "executable": check.executable, "ok": check.ok,
            "expected_count": check.expected_count, "supplied_count": check.supplied_count,
            "pairing": check.pairing, "per_tuple_element": check.per_tuple_element,
            "missing": check.missing, "extra": check.extra,
            "mismatches": mismatches, "messages": check.messages,
            "diagnostics": diagnostics("inputs", [source] if source else [], inputs_findings(check, source, module))}


def run(args: argparse.Namespace) -> int:
    check, source, module = run_inputs(args)
    if args.html:
        from ..report.html import render_inputs_html

        title = f"xladoctor inputs: {args.expected} vs {args.supplied or args.supplied_shapes}"
        page = render_inputs_html({"schema_version": 1, **check_to_json(check, source, module)}, title=title)
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(page)
        except OSError as e:
            raise InputError(f"cannot write file: {e.strerror or e}", args.html, 1, 1) from None
        print(f"wrote {args.html}", file=sys.stderr)
    if args.json:
        print_json(check_to_json(check, source, module))
    else:
        if check.missing:
            print("expected but not supplied: " + ", ".join(map(escape_field, check.missing)))
        if check.extra:
            print("supplied but not expected: " + ", ".join(map(escape_field, check.extra)))
        print("\n".join(report_lines(check)))
    return 0 if check.ok else 1
