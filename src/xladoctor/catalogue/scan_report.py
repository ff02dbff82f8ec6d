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

from ..commands._format import emit_document
from ..errors import InputError
from ..report.escape import escape_field
from ..report.units import human_bytes
from .loader import load_catalogue
from .render import LABELS, Writer
from .scanner import MAX_DISTINCT, Finding, LogScanner

SCAN_LABELS = {
    "en": {"found": "{n} distinct XLA errors found", "found_one": "1 distinct XLA error found", "none": "no XLA error found", "times": "times",
           "fields": "Fields", "analysis": "Analysis", "more": "Run `xladoctor explain {code}` for the full entry."},
    "fa": {"found": "{n} خطای متمایز XLA پیدا شد", "found_one": "۱ خطای متمایز XLA پیدا شد", "none": "هیچ خطای XLA پیدا نشد", "times": "بار",
           "fields": "فیلدها", "analysis": "تحلیل", "more": "برای توضیح کامل `xladoctor explain {code}` را اجرا کنید."},
}


@dataclasses.dataclass
class LogScan:
    """What scanning one log found: distinct findings, and messages not kept once MAX_DISTINCT were."""

    findings: list[Finding]
    source: str
    not_shown: dict[str, int]


def scan_file(target: str, parallel: bool = True) -> LogScan:
    """Findings in a file or stdin, in bounded memory; a big regular file uses every core.

    Regular files and streams (stdin, pipes, FIFOs named on the command line) are read;
    devices and sockets are refused (``/dev/zero`` would never end).
    """
    from ..files import check_readable_kind
    from .fastscan import scan_path, scan_stream

    scanner = LogScanner()
    if target == "-":
        scan_stream(sys.stdin.buffer, scanner)
        return LogScan(scanner.finish(), "<stdin>", scanner.not_shown)
    kind = check_readable_kind(target)
    try:
        if kind == "regular":
            scan_path(target, scanner, parallel)
        else:
            with open(target, "rb", buffering=0) as stream:
                scan_stream(stream, scanner)
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", target, 1, 1) from None
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", target, 1, 1) from None
    return LogScan(scanner.finish(), target, scanner.not_shown)


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


def finding_fixes(f: Finding, lang: str) -> list[str]:
    """The fixes for one finding, as the findings model has them (one home: ``findings.from_log``):
    first those its own analysis supports, then the catalogue's unless the analysis rules them out."""
    from ..findings.from_log import log_fixes

    return [x.text for x in log_fixes(f, lang)]


# Analysis keys that steer the report rather than describe the error.
_HIDDEN_ANALYSIS = ("offload", "trace", "notes", "notes_fa", "fixes_first", "fixes_first_fa", "replaces_fixes",
                    "skips_fixes_with", "scenario", "larger_user")
# Field keys that are parser bookkeeping, not part of the message.
_HIDDEN_FIELDS = ("format", "variant")


def attach_offload_analysis(hlo_path: str, findings: list[Finding]) -> None:
    """Run the host-offload analysis on ``--hlo`` and attach its errors to the E1200 findings."""
    from ..commands._common import read_input
    from ..offload.analysis import analyze_host_offload  # lazy: only --hlo needs it
    from ..syntax.hlo_parser import parse_module

    text, source = read_input(hlo_path)
    module = parse_module(text, source=source)
    result = analyze_host_offload(module)
    errors = [_jsonable(e) for e in result.errors]
    for f in findings:
        if f.code != "E1200":
            continue
        start = f.fields.get("start")
        matching = [e for e in errors if isinstance(e, dict) and e.get("start") == start]
        f.analysis["offload"] = {"module": source, "errors": matching or errors,
                                 "matched_start": bool(matching)}


def scan_document(findings: list[Finding], source: str, lang: str,
                  not_shown: dict[str, int] | None = None) -> dict[str, Any]:
    """The ``explain FILE --json`` document (docs/json.md ``## explain``), without ``schema_version``."""
    doc: dict[str, Any] = {"command": "explain", "mode": "scan", "source": source, "lang": lang,
           "findings": [_jsonable(f.to_json(finding_fixes(f, lang))) for f in findings]}
    if not_shown:
        doc["not_shown"] = {"distinct_limit": MAX_DISTINCT, "messages": sum(not_shown.values()),
                            "by_code": dict(sorted(not_shown.items()))}
    from ..pipeline import diagnostics, log_findings  # the one findings serialiser (explain and check)

    doc["diagnostics"] = diagnostics("explain", [source], log_findings(findings, source, lang), lang)
    return doc


def not_shown_line(not_shown: dict[str, int]) -> str:
    codes = ", ".join(f"{code} x{n}" for code, n in sorted(not_shown.items()))
    return (f"{sum(not_shown.values())} more message(s) not shown: only the first {MAX_DISTINCT} distinct errors "
            f"are kept ({codes})")


def scan_and_report(target: str, args: argparse.Namespace, lang: str, width: int, bidi: str) -> int:
    scan = scan_file(target)
    findings, source = scan.findings, scan.source
    if args.hlo:
        attach_offload_analysis(args.hlo, findings)
    if args.json:
        emit_document(scan_document(findings, source, lang, scan.not_shown), args)
    else:
        sys.stdout.write(render_findings(findings, source, lang, width, bidi))
        if scan.not_shown:
            sys.stdout.write(not_shown_line(scan.not_shown) + "\n")
    return 1 if findings else 0


def _format_value(value: Any, key: str = "") -> str:
    bytes_like = key.endswith(("bytes", "_size")) or key in ("expected_size", "actual_size")
    if bytes_like and isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1024:
        return f"{value:,} ({human_bytes(value)})"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}x" if key.endswith("ratio") or "_over_" in key else f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool) and key not in ("line", "parameter", "replica",
                                                                              "partition", "dim", "dimension"):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):  # written out, not as a Python repr (no quotes around names)
        return "[" + ", ".join(_format_value(v) if isinstance(v, (list, tuple)) else str(v) for v in value) + "]"
    return str(value)


def _dict_lines(d: dict[str, Any], indent: str, width: int) -> list[str]:
    """Flat key: value lines; nested dicts indented, lists of scalars inline, notes as bullets."""
    out: list[str] = []
    for key, value in d.items():
        if value is None or value == [] or value == {} or key == "parsed":
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
        fields = _dict_lines({k: v for k, v in f.fields.items() if k not in _HIDDEN_FIELDS}, "    ", width - 6)
        if fields:
            w.prose(scan["fields"] + ":", indent="  ")
            w.lines.extend(fields)
        # The story first (what differs, which dimension is padded), then the numbers behind it;
        # no heading when the analysis only steers the fixes (a memory-space E0102).
        notes = f.analysis.get("notes_fa" if lang == "fa" else "notes") or f.analysis.get("notes") or []
        rest = _dict_lines({k: v for k, v in f.analysis.items() if k not in _HIDDEN_ANALYSIS}, "    ", width - 6)
        path = _path_lines(f.analysis)
        if notes or rest or path:
            w.prose(scan["analysis"] + ":", indent="  ")
            w.bullets(notes, indent="    ")
            w.lines.extend(rest + path)
        w.prose(labels["fixes"] + ":", indent="  ")
        w.bullets(finding_fixes(f, lang), indent="    ")
        if entry.url:
            w.code(entry.url, indent="  ")
        w.prose(scan["more"].format(code=f.code), indent="  ")
        w.blank()
    if findings:
        w.prose(scan["found_one"] if len(findings) == 1 else scan["found"].format(n=f"{len(findings):,}"))
    else:
        w.prose(scan["none"])
    return "\n".join(w.lines) + "\n"
