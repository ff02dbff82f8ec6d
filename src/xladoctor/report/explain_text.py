"""The text of ``xladoctor explain FILE|-`` (and of a log in ``check``): findings of a scanned log.

Per distinct error: where it first appears, how often, the message, the parsed fields, the
analysis (recomputed sizes, offload path) and the fixes from the catalogue in the chosen
language.  The JSON of the same findings is :mod:`.explain_json`.
"""

from __future__ import annotations

import textwrap
from typing import Any

from ..catalogue import scanner
from ..catalogue.fixes import finding_fixes
from ..catalogue.loader import load_catalogue
from ..catalogue.scanner import Finding
from ..escape import escape_field
from ..ir.shape import format_shape_index
from ..labels import label
from ..units import human_bytes
from .catalogue_text import Writer

# Analysis keys that steer the report rather than describe the error.
_HIDDEN_ANALYSIS = ("offload", "trace", "notes", "fixes_first", "replaces_fixes", "skips_fixes_with", "scenario",
                    "larger_user")
# Field keys that are parser bookkeeping, not part of the message.
_HIDDEN_FIELDS = ("format", "variant")


def not_shown_line(not_shown: dict[str, int], lang: str = "en") -> str:
    codes = ", ".join(f"{code} x{n}" for code, n in sorted(not_shown.items()))
    return label("scan.not_shown", lang, n=sum(not_shown.values()), limit=scanner.MAX_DISTINCT, codes=codes)


def not_shown_text(not_shown: dict[str, int], lang: str, width: int, bidi: str) -> str:
    """The "more messages not shown" line as the report prints it (through bidi in Persian)."""
    w = Writer(lang, width, bidi)
    _sentence(w, not_shown_line(not_shown, lang), "")
    return "\n".join(w.lines) + "\n"


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
        index = format_shape_index(tuple(index))
    opcode = f" ({h['opcode']})" if h.get("opcode") else ""
    return f"{h.get('instruction')}{opcode} {index}"


def _sentence(w: Writer, text: str, indent: str) -> None:
    """A sentence among code-like lines: as is in a left-to-right language, through bidi in Persian."""
    if w.rtl:
        w.prose(text, indent=indent)
    else:
        w.lines.append(indent + text)


def _path_lines(analysis: dict[str, Any], lang: str, width: int, bidi: str) -> list[str]:
    """The offloaded tensor's path: from the log's host_offloader trace and/or the --hlo analysis."""
    w = Writer(lang, width, bidi)
    if analysis.get("trace"):
        _sentence(w, label("scan.trace_heading", lang), "    ")
        w.lines.extend(f"      {_hop(h)}" for h in analysis["trace"])
    offload = analysis.get("offload")
    if offload:
        _sentence(w, label("scan.offload_heading", lang, module=offload.get("module")), "    ")
        if not offload.get("matched_start"):
            _sentence(w, label("scan.no_matching_start", lang), "      ")
        for err in offload.get("errors", []):
            if not isinstance(err, dict):
                w.lines.append(f"      {err}")
                continue
            _sentence(w, label("scan.offload_error", lang, start=err.get("start"), origin=err.get("origin"),
                               index=err.get("output_index"), layout=err.get("output_layout")), "      ")
            for h in err.get("path") or err.get("trace") or []:
                w.lines.append(f"        -> {_hop(h)}")
    return w.lines


def render_findings(findings: list[Finding], source: str, lang: str, width: int, bidi: str) -> str:
    cat = load_catalogue()
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
            w.prose(label("scan.fields", lang) + ":", indent="  ")
            w.lines.extend(fields)
        # The story first (what differs, which dimension is padded), then the numbers behind it;
        # no heading when the analysis only steers the fixes (a memory-space E0102).
        notes = [t.render(lang) for t in f.analysis.get("notes") or ()]
        rest = _dict_lines({k: v for k, v in f.analysis.items() if k not in _HIDDEN_ANALYSIS}, "    ", width - 6)
        path = _path_lines(f.analysis, lang, width, bidi)
        if notes or rest or path:
            w.prose(label("scan.analysis", lang) + ":", indent="  ")
            w.bullets(notes, indent="    ")
            w.lines.extend(rest + path)
        w.prose(label("entry.fixes", lang) + ":", indent="  ")
        w.bullets(finding_fixes(f, lang), indent="    ")
        if entry.url:
            w.code(entry.url, indent="  ")
        w.prose(label("scan.more", lang, code=f.code), indent="  ")
        w.blank()
    if findings:
        w.prose(label("scan.found_one", lang) if len(findings) == 1 else label("scan.found", lang, n=f"{len(findings):,}"))
    else:
        w.prose(label("scan.none", lang))
    return "\n".join(w.lines) + "\n"
