"""The text of ``xladoctor explain FILE|-`` (and of a log in ``check``): findings of a scanned log.

Per distinct error: where it first appears, how often, the message, the parsed fields, the
analysis (recomputed sizes, offload path) and the fixes from the catalogue in the chosen
language.  Drawn from the findings model (``FindingKind.LOGGED_ERROR``, read from the
scanner by ``findings.from_log``, the adapter every route uses), so ``explain`` prints what
the ``diagnostics`` say; only the ``--hlo`` analysis, which is not a finding, comes beside
it.  The JSON of the same findings is :mod:`.explain_json`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

from ..base.escape import escape_field
from ..base.labels import label
from ..catalogue import scanner
from .catalogue_text import Writer

# The catalogue (loader, its TOML reader, model and the IR values it uses), the glossary, units
# and serialise are imported where a finding is drawn: a clean log's "no XLA error found" needs
# none of them (issue 36, h53s).
TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..catalogue.scanner import LogMatch
    from ..findings.finding import Finding, Hop

# Analysis keys that steer the report rather than describe the error.
HIDDEN_ANALYSIS = ("offload", "trace", "notes", "fixes_first", "replaces_fixes", "skips_fixes_with", "scenario",
                    "larger_user")
# Field keys that are parser bookkeeping, not part of the message; the model's own keys for the
# analysis and its notes (``findings.from_log``), drawn under their own heading.
HIDDEN_FIELDS = ("format", "variant", "analysis", "notes", "start_kind", "mismatches")  # E01xx: quoted above
# The text shows the most direct fixes; the rest (the catalogue's general advice, near-duplicates
# of each other) are one `explain CODE` away, and all are in the JSON.
_FIXES_SHOWN = 2


def _in_message(value: Any, message: str) -> bool:
    """A field the log's own message already shows (a printed shape, a size, a name): not repeated."""
    return not isinstance(value, (dict, list, bool)) and str(value) in message


def not_shown_line(not_shown: dict[str, int], lang: str = "en") -> str:
    from ..base.labels import glossary

    codes = ", ".join(f"{code} x{n}" for code, n in sorted(not_shown.items()))
    return label("scan.not_shown", lang, more=glossary.count(sum(not_shown.values()), "more_message", lang),
                 limit=scanner.MAX_DISTINCT, codes=codes)


def not_shown_text(not_shown: dict[str, int], lang: str, width: int, bidi: str) -> str:
    """The "more messages not shown" line as the report prints it (through bidi in Persian)."""
    w = Writer(lang, width, bidi)
    _sentence(w, not_shown_line(not_shown, lang), "")
    return "\n".join(w.lines) + "\n"


def _format_value(value: Any, key: str = "") -> str:
    bytes_like = key.endswith(("bytes", "_size")) or key in ("expected_size", "actual_size")
    if bytes_like and isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1024:
        from ..base.units import human_bytes

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


def _hop(h: Hop) -> str:
    """A hop of the log's trace (instruction and ShapeIndex as XLA printed them)."""
    opcode = f" ({h.opcode})" if h.opcode else ""
    return f"{h.instruction}{opcode} {_shape_index(h.shape_index)}"


def _analysis_hop(h: Mapping[str, Any]) -> str:
    """A hop of the ``--hlo`` analysis' path (its JSON form: shape index a list), as ``check`` draws
    one: ``tuple.1{0} (tuple)``, the ShapeIndex after the name only when it is not empty."""
    index = h.get("shape_index")
    if isinstance(index, list):
        index = _shape_index(tuple(index)) if index else ""
    opcode = f" ({h['opcode']})" if h.get("opcode") else ""
    return f"{h.get('instruction')}{index or ''}{opcode}"


def _sentence(w: Writer, text: str, indent: str) -> None:
    """A sentence among code-like lines: as is in a left-to-right language, through bidi in Persian."""
    if w.rtl:
        w.prose(text, indent=indent)
    else:
        w.lines.append(indent + text)


def _path_lines(f: Finding, offload: Mapping[str, Any] | None, lang: str, width: int, bidi: str) -> list[str]:
    """The offloaded tensor's path: the finding's (the log's host_offloader trace), then the
    ``--hlo`` analysis of the module, shown as the analysis it is (it is not a finding)."""
    from ..base.labels import glossary

    w = Writer(lang, width, bidi)
    if f.path:
        _sentence(w, label("scan.trace_heading", lang), "    ")
        w.lines.extend(f"      {_hop(h)}" for h in f.path)
    if offload:
        _sentence(w, label("scan.offload_heading", lang, module=offload.get("module")), "    ")
        if not offload.get("matched_start"):
            _sentence(w, label("scan.no_matching_start", lang), "      ")
        for err in offload.get("errors", []):
            if not isinstance(err, dict):
                w.lines.append(f"      {err}")
                continue
            _sentence(w, label("scan.offload_error", lang, start=err.get("start"), origin=err.get("origin"),
                               output=glossary.output(str(_index(err.get("output_index"))), lang), layout=err.get("output_layout")), "      ")
            for h in err.get("path") or err.get("trace") or []:
                w.lines.append(f"        -> {_analysis_hop(h)}")
    return w.lines


def _index(value: Any) -> Any:
    """An output's ShapeIndex in XLA's spelling, ``{0}``, as every other report names it."""
    return _shape_index(tuple(value)) if isinstance(value, list) else value


def _message_lines(message: str, width: int) -> list[str]:
    """The log's own words, first eight lines, verbatim: not re-wrapped, so a line can be searched
    for as XLA wrote it (escaped: a log may hold control characters)."""
    message_lines = message.splitlines()
    shown = message_lines[:8] + (["..."] if len(message_lines) > 8 else [])
    return [f"    {escape_field(line)}" if line else "" for line in shown]


def _render_one(w: Writer, f: Finding, offload: Mapping[str, Any] | None, lang: str, width: int, bidi: str) -> None:
    """One logged finding (``FindingKind.LOGGED_ERROR``) in full, as ``explain`` prints it."""
    from ..catalogue.loader import load_catalogue
    from ..findings.serialise import thaw_json

    url = load_catalogue().entries[f.code].url
    model = thaw_json(f.fields)
    times = f" (x{f.count})" if f.count > 1 else ""
    w.code(f"{escape_field(f.location.path or '')}:{f.location.line}: {f.code} {f.name}{times}", indent="")
    w.prose(f.title, indent="  ")
    w.lines.extend(_message_lines(f.message, width))
    fields = _dict_lines({k: v for k, v in model.items() if k not in HIDDEN_FIELDS and not _in_message(v, f.message)},
                         "    ", width - 6)
    if fields:
        w.prose(label("scan.fields", lang) + ":", indent="  ")
        w.lines.extend(fields)
    # The story first (what differs, which dimension is padded), then the numbers behind it;
    # no heading when the analysis only steers the fixes (a memory-space E0102).
    notes = model.get("notes") or []
    analysis = model.get("analysis") or {}
    # The numbers behind the notes (printed sizes, tilings, defaults) are the JSON's; the text says
    # them only where no note tells the story.
    rest = [] if notes else _dict_lines({k: v for k, v in analysis.items() if k not in HIDDEN_ANALYSIS}, "    ",
                                        width - 6)
    path = _path_lines(f, offload, lang, width, bidi)
    if notes or rest or path:
        w.prose(label("scan.analysis", lang) + ":", indent="  ")
        w.bullets(notes, indent="    ")
        w.lines.extend(rest + path)
    w.prose(label("entry.fixes", lang) + ":", indent="  ")
    w.bullets([fix.text for fix in f.fixes[:_FIXES_SHOWN]], indent="    ")
    if len(f.fixes) > _FIXES_SHOWN:
        w.prose(label("scan.more_fixes", lang, n=len(f.fixes) - _FIXES_SHOWN, code=f.code), indent="    ")
    if url:
        w.code(url, indent="  ")
    w.prose(label("scan.more", lang, code=f.code), indent="  ")
    w.blank()


def _all_xla(findings: Sequence[Finding]) -> bool:
    """Whether every finding's code is one of XLA's catalogue (``origin = "xla"``), not one
    xladoctor gives errors XLA has no code for (E01xx: JAX's own layout and memory-kind checks)."""
    from ..catalogue import load_catalogue

    entries = load_catalogue().entries
    return all(getattr(entries.get(f.code), "origin", "xla") == "xla" for f in findings)


def _shape_index(index: tuple[int, ...]) -> str:
    """XLA's ``{0,1}``; the IR's shape module only when a finding has an index to show (issue 36 item 6:
    a clean log's report imports no IR)."""
    from ..ir.shape import format_shape_index

    return format_shape_index(index)


def draw_findings(findings: Sequence[Finding], lang: str, width: int, bidi: str,
                  offload: Sequence[Mapping[str, Any] | None] = ()) -> str:
    """The findings of one log (``findings.from_log``), drawn in ``lang``; ``offload[i]`` is the
    ``--hlo`` analysis attached to the i-th finding (an E1200), if any."""
    w = Writer(lang, width, bidi)
    for i, f in enumerate(findings):
        _render_one(w, f, offload[i] if i < len(offload) else None, lang, width, bidi)
    if findings:
        # "XLA error" only while every code is XLA's: JAX's own checks (E01xx) are not (_all_xla)
        one, many = ("scan.found_one", "scan.found") if _all_xla(findings) else ("scan.found_any_one", "scan.found_any")
        w.prose(label(one, lang) if len(findings) == 1 else label(many, lang, n=f"{len(findings):,}"))
    else:
        w.prose(label("scan.none", lang))
    return "\n".join(w.lines) + "\n"


def render_findings(findings: Sequence[LogMatch], source: str, lang: str, width: int, bidi: str) -> str:
    """The scanner's findings read into the model (the one adapter), then drawn; the ``--hlo``
    analysis attached to an E1200 comes beside its finding."""
    from ..findings.from_log import log_findings

    return draw_findings(log_findings(findings, source, lang), lang, width, bidi,
                           [f.analysis.get("offload") for f in findings])
