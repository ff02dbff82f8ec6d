"""``xladoctor explain FILE|-``: scan the input, then print findings as text or JSON.

The text report gives, per distinct error: where it first appears, how often,
the message, the parsed fields, the analysis (recomputed sizes, offload path)
and the fixes from the catalogue in the chosen language.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import textwrap
from typing import Any

from ..commands._common import print_json
from ..errors import InputError
from ..report.escape import escape_field
from ..report.units import human_bytes
from .loader import load_catalogue
from .render import LABELS, Writer
from .scanner import Finding, LogScanner

SCAN_LABELS = {
    "en": {"found": "{n} distinct XLA error(s) found", "none": "no XLA error found", "times": "times",
           "fields": "Fields", "analysis": "Analysis", "more": "Run `xladoctor explain {code}` for the full entry."},
    "fa": {"found": "{n} خطای متمایز XLA پیدا شد", "none": "هیچ خطای XLA پیدا نشد", "times": "بار",
           "fields": "فیلدها", "analysis": "تحلیل", "more": "برای توضیح کامل `xladoctor explain {code}` را اجرا کنید."},
}


def _open_binary(target: str):
    if target == "-":
        return sys.stdin.buffer, "<stdin>"
    try:
        return open(target, "rb"), target
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", target, 1, 1) from None
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", target, 1, 1) from None


def scan_file(target: str) -> tuple[list[Finding], str]:
    """Findings in a file or stdin, read in blocks (bounded memory)."""
    stream, source = _open_binary(target)
    try:
        return LogScanner().scan_binary(stream), source
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def attach_offload_analysis(hlo_path: str, findings: list[Finding]) -> None:
    """Run the host-offload analysis on ``--hlo`` and attach its errors to the E1200 findings."""
    from ..commands._common import read_input
    from ..offload.analysis import analyze_host_offload  # lazy: only --hlo needs it
    from ..syntax.hlo_parser import parse_module

    text, source = read_input(hlo_path)
    module = parse_module(text, source=source)
    result = analyze_host_offload(module, strict=False)
    errors = [_jsonable(e) for e in result.errors]
    for f in findings:
        if f.code != "E1200":
            continue
        start = f.fields.get("start")
        matching = [e for e in errors if isinstance(e, dict) and e.get("start") == start]
        f.analysis["offload"] = {"module": source, "errors": matching or errors,
                                 "matched_start": bool(matching)}


def scan_document(findings: list[Finding], source: str, lang: str) -> dict[str, Any]:
    """The ``explain FILE --json`` document (docs/json.md ``## explain``), without ``schema_version``."""
    cat = load_catalogue()
    return {"command": "explain", "mode": "scan", "source": source, "lang": lang,
            "findings": [_jsonable(f.to_json(list(cat.entries[f.code].describe(lang).fixes))) for f in findings]}


def scan_and_report(target: str, args: argparse.Namespace, lang: str, width: int, bidi: str) -> int:
    findings, source = scan_file(target)
    if args.hlo:
        attach_offload_analysis(args.hlo, findings)
    if args.json:
        print_json(scan_document(findings, source, lang))
    else:
        sys.stdout.write(render_findings(findings, source, lang, width, bidi))
    return 1 if findings else 0


def _format_value(value: Any, key: str = "") -> str:
    bytes_like = key.endswith(("bytes", "_size")) or key in ("expected_size", "actual_size")
    if bytes_like and isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1024:
        return f"{value} ({human_bytes(value)})"
    return str(value)


def _dict_lines(d: dict[str, Any], indent: str, width: int) -> list[str]:
    """Flat key: value lines; nested dicts indented, lists of scalars inline, notes as bullets."""
    out: list[str] = []
    for key, value in d.items():
        if value is None or value == [] or value == {}:
            continue
        if isinstance(value, dict):
            out.append(f"{indent}{key}:")
            out.extend(_dict_lines(value, indent + "  ", width))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            out.append(f"{indent}{key}:")
            for item in value:
                out.append(f"{indent}  - " + ", ".join(f"{k}={_format_value(v, k)}" for k, v in item.items()
                                                       if v is not None))
        elif isinstance(value, list) and key == "notes":
            for note in value:
                out.extend(textwrap.wrap(note, width, initial_indent=f"{indent}* ",
                                         subsequent_indent=f"{indent}  ", break_long_words=False))
        else:
            out.append(f"{indent}{key}: {_format_value(value, key)}")
    return out


def _hop(h: dict[str, Any]) -> str:
    index = h.get("shape_index")
    if isinstance(index, list):
        index = "{" + ",".join(map(str, index)) + "}"
    opcode = f" ({h['opcode']})" if h.get("opcode") else ""
    return f"{h.get('instruction')}{opcode} {index}"


def _path_lines(analysis: dict[str, Any]) -> list[str]:
    """The offloaded tensor's path: from the log's host_offloader trace and/or the --hlo analysis."""
    out: list[str] = []
    if analysis.get("trace"):
        out.append("    trace from the log (host_offloader):")
        out.extend(f"      {_hop(h)}" for h in analysis["trace"])
    offload = analysis.get("offload")
    if offload:
        out.append(f"    host-offload analysis of {offload.get('module')}:")
        if not offload.get("matched_start"):
            out.append("      (no error in this module starts at the instruction named in the log; all shown)")
        for err in offload.get("errors", []):
            if not isinstance(err, dict):
                out.append(f"      {err}")
                continue
            out.append(f"      starts at {err.get('start')} (from {err.get('origin')}), reaches entry output "
                       f"{err.get('output_index')} whose layout {err.get('output_layout')} is not host memory")
            for h in err.get("path") or err.get("trace") or []:
                out.append(f"        -> {_hop(h)}")
    return out


def render_findings(findings: list[Finding], source: str, lang: str, width: int, bidi: str) -> str:
    cat = load_catalogue()
    labels, scan = LABELS[lang], SCAN_LABELS[lang]
    w = Writer(lang, width, bidi)
    for f in findings:
        entry = cat.entries[f.code]
        text = entry.describe(lang)
        times = f" (x{f.count})" if f.count > 1 else ""
        w.code(f"{escape_field(source)}:{f.line}: {f.code} {f.name}{times}", indent="")
        w.prose(text.title, indent="  ")
        message = f.text.splitlines()
        shown = message[:8] + (["..."] if len(message) > 8 else [])
        for line in shown:
            w.lines.extend(textwrap.wrap(escape_field(line), width, initial_indent="    ", subsequent_indent="      ",
                                         break_on_hyphens=False) or [""])
        if f.fields:
            w.prose(scan["fields"] + ":", indent="  ")
            w.lines.extend(_dict_lines(f.fields, "    ", width - 6))
        if f.analysis:
            w.prose(scan["analysis"] + ":", indent="  ")
            # The story first (what differs, which dimension is padded), then the numbers behind it.
            notes = f.analysis.get("notes_fa" if lang == "fa" else "notes") or f.analysis.get("notes") or []
            w.bullets(notes, indent="    ")
            rest = {k: v for k, v in f.analysis.items() if k not in ("offload", "trace", "notes", "notes_fa")}
            w.lines.extend(_dict_lines(rest, "    ", width - 6))
            w.lines.extend(_path_lines(f.analysis))
        w.prose(labels["fixes"] + ":", indent="  ")
        w.bullets(text.fixes, indent="    ")
        w.code(f"{entry.url}", indent="  ")
        w.prose(scan["more"].format(code=f.code), indent="  ")
        w.blank()
    w.prose(scan["found"].format(n=len(findings)) if findings else scan["none"])
    return "\n".join(w.lines) + "\n"
