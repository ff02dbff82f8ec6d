"""The text of ``xladoctor check``: a section per file with something to say, quiet files one
line each, then a tally.  Reads the ``check --json`` document, so both tell the same story."""

from __future__ import annotations

from collections.abc import Mapping

from ..base.escape import escape_field
from ..base.labels import in_lang, label, plural
from ..findings.model import FindingKind
from ..findings.wire import details_of, load_document, report_of
from .companion_text import companion_shown

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..findings.finding import Finding


def render_text(doc: dict[str, Any], lang: str) -> str:
    """Files with something to say get a section; quiet ones one line each, after them.  The
    findings are the documents' typed ones (a document read from JSON is typed here, once)."""
    doc = load_document(doc)
    return assemble(doc, [file_piece(f, lang) for f in doc["files"]], lang)


def file_piece(f: dict[str, Any], lang: str) -> tuple[str, Any] | None:
    """One file's part of the report, drawn as soon as it is checked (``check`` keeps this, not the
    file's document): ``("section", lines)`` or ``("quiet", (line, kind))``; None for a skipped file."""
    kind = f["kind"]
    if kind == "skipped":
        return None
    if kind == "error":
        return "section", (f"== {escape_field(f['path'])}", "   " + label("check.cannot_check", lang, error=f["error"]), "")
    if _is_quiet(f):
        return "quiet", (f"   {_shown_path(f, lang)}: {_quiet_reason(f, lang)}", kind)
    # lazy, as the two below: a clean log's line needs no finding's renderer (issue 36 item 6)
    from .snippet import inputs_forgotten

    with inputs_forgotten():  # the file's lines its snippets read are not kept for the next file
        body = _hlo_text(f, lang) if kind == "hlo" else _log_text(f, lang)
    return "section", (f"== {_shown_path(f, lang)}", body, "")


def _shown_path(f: dict[str, Any], lang: str) -> str:
    """The file's path; for a graph of a PyTorch/XLA tensors file, which graph and where it synced."""
    path = escape_field(f["path"])
    graph = f.get("graph")
    if not isinstance(graph, dict):
        return path
    synced = graph.get("synced_at")
    if not isinstance(synced, dict):
        return label("check.graph_of_unsynced", lang, path=path, index=graph["index"], of=graph["of"])
    where = escape_field(f"{synced['file']}:{synced['line']}")
    if graph.get("times", 1) > 1:  # the same graph synced again at each step: checked once
        return label("check.graph_of_repeated", lang, path=path, index=graph["index"], of=graph["of"],
                     times=graph["times"], where=where)
    return label("check.graph_of", lang, path=path, index=graph["index"], of=graph["of"], where=where)


def assemble(doc: dict[str, Any], pieces: list[tuple[str, Any] | None], lang: str) -> str:
    """The report from each file's piece (:func:`file_piece`, in walk order) and the document's
    ``files`` (only their kind, path, note and ``companion_of`` are read) and totals."""
    out: list[str] = []
    quiet: list[tuple[str, str]] = []
    for piece in pieces:
        if piece is not None:
            if piece[0] == "quiet":
                quiet.append(piece[1])
            else:
                out += piece[1]
    if quiet:
        out += [*_quiet_lines(quiet, lang), *_cpu_lines(doc, lang), ""]
    # the StableHLO read with its module (companion_of) was not skipped for being "not HLO text or logs"
    skipped = [f for f in doc["files"] if f["kind"] == "skipped" and not f.get("companion_of")]
    special = [f for f in skipped if _is_special_skip(f)]
    if special:  # a FIFO or a symlink out of the directory is worth a line; XLA's artefacts are not
        out += [label("check.not_read", lang, n=len(special)),
                *(f"   {escape_field(f['path'])}: {f['note']}" for f in special), ""]
    out.append(_tally(doc, skipped, special, lang))
    return "\n".join(out) + "\n"


_QUIET_LISTED = 3
"""Up to this many clean files are listed one a line; more are one summary line (a dump folder)."""


def _quiet_lines(quiet: list[tuple[str, str]], lang: str) -> list[str]:
    """What was clean: each file when they are few, else one line counting modules and logs."""
    files = plural(len(quiet), "check.file", "check.files", lang)
    if len(quiet) <= _QUIET_LISTED:
        return [label("check.quiet", lang, files=files), *(line for line, _kind in quiet)]
    modules = sum(1 for _line, kind in quiet if kind == "hlo")
    parts = [plural(modules, "check.clean_module", "check.clean_modules", lang)] if modules else []
    if len(quiet) - modules:
        parts.append(plural(len(quiet) - modules, "check.clean_log", "check.clean_logs", lang))
    return [label("check.quiet_summary", lang, files=files, what="; ".join(parts))]


def _cpu_lines(doc: dict[str, Any], lang: str) -> list[str]:
    """One line for the modules left unparsed that XLA lowered or compiled for CPU: jax's CPU
    lowering drops the host-offload annotations, so their "nothing to report" is no TPU verdict."""
    cpu = [f for f in doc["files"] if f.get("kind") == "hlo" and f.get("parsed") is False
           and (f.get("provenance") or {}).get("platform") == "cpu"]
    if not cpu:
        return []
    return ["   " + label("check.cpu_modules", lang, n=len(cpu), evidence=cpu[0]["provenance"]["evidence"][0])]


def _tally(doc: dict[str, Any], skipped: list[dict[str, Any]], special: list[dict[str, Any]], lang: str) -> str:
    """The last line: files checked, findings, and what was skipped or unreadable."""
    companions = sum(1 for f in doc["files"] if f.get("companion_of"))
    checked = len(doc["files"]) - len(skipped) - companions - doc["input_errors"]
    tail = label("check.tally", lang, files=plural(checked, "check.file", "check.files", lang),
                 findings=plural(doc["findings"], "check.finding", "check.findings", lang))
    side = sum(1 for f in skipped if "XLA dump artefact" in f["note"])  # route.folder.SIDE_FILE_NOTE
    if side:
        tail += label("check.tally_side_files", lang, n=side)
    source = sum(1 for f in skipped if f["note"] == "source code, not a log or HLO text")  # route.folder.SOURCE_NOTE
    if source:
        tail += label("check.tally_source_files", lang, n=source)
    if len(skipped) - side - source:
        tail += label("check.tally_skipped", lang, n=len(skipped) - side - source)
        if special:
            tail += label("check.tally_special", lang,
                          special=plural(len(special), "check.special_file", "check.special_files", lang))
    if doc["input_errors"]:
        tail += label("check.tally_unreadable", lang, n=doc["input_errors"])
    return tail


def _is_special_skip(f: dict[str, Any]) -> bool:
    return "not a regular file" in f["note"] or "symlink" in f["note"]


def _is_quiet(f: dict[str, Any]) -> bool:
    if f["findings"]:
        return False
    if f.get("confirm") or (f.get("parsed") is not False and f.get("provenance", {}).get("note")):
        return False  # a module left unparsed has its CPU provenance said once for all (_cpu_lines)
    if f["kind"] == "hlo":
        off = f.get("offload")
        details = details_of(off) if off is not None else {}
        return off is None or not (details.get("warnings") or details.get("failures")
                                   or details.get("outputs_moved_to_host"))
    return True


def _quiet_reason(f: dict[str, Any], lang: str) -> str:
    if f["kind"] == "log":
        return label("check.no_xla_error", lang)
    if "hlo" not in f:  # triaged without parsing
        why = label("check.compiled" if f["compiled"] else "check.no_annotation", lang)
        return label("check.quiet_module", lang, module=f["module"], why=why)
    name = label("check.module_size", lang, module=f["hlo"]["name"],
                 instructions=plural(f["hlo"]["instruction_count"], "check.instruction", "check.instructions", lang))
    why = label("check.compiled" if "note" in f else "check.none_predicted", lang)
    off = f.get("offload")
    if "note" not in f and off is not None and not _moves_anything(details_of(off)):
        # said as xladoctor.jax says it: a remat policy whose names match nothing looked like a clean offload
        why = label("check.nothing_moved", lang)
    companion = (off or {}).get("stablehlo")
    if companion:  # which StableHLO the verdict used, on the quiet line too
        how = label("check.kinds_beside" if companion["found"] == "beside" else "check.kinds_option", lang)
        why += "; " + label("check.kinds_from", lang, path=companion_shown(companion, lang), how=how)
    return label("check.quiet_module", lang, module=name, why=why)


def _moves_anything(details: Mapping[str, Any]) -> bool:
    """Did the analysis see anything in host memory: a walk (a move to host, a host argument), a
    host position or a copy it inserts?"""
    return bool(details.get("walks") or details.get("host_positions") or details.get("inserted"))


def _hlo_text(f: dict[str, Any], lang: str) -> str:
    s = f["hlo"]
    lines = ["   " + label("check.module", lang, module=s["name"],
                          instructions=plural(s["instruction_count"], "check.instruction", "check.instructions", lang),
                          computations=plural(len(s["computations"]), "check.computation", "check.computations",
                                              lang))]
    for x in _findings(f["offload"]) if f.get("offload") else ():
        if x.kind is FindingKind.LAYOUT_WARNING:  # every verdict's, the parser's warnings first
            lines.extend(_indented(x, lang))
    if "note" in f:  # compiled (an English note in the JSON: the reader's words here) or undecidable
        compiled = f.get("provenance", {}).get("stage") == "compiled"
        lines.append("   " + (label("status.compiled_module", lang) if compiled else str(f["note"])))
        return "\n".join(lines)
    off = f["offload"]
    if off.get("stablehlo"):  # which StableHLO the verdict used (the resolver's, as offload says it)
        how = label("check.kinds_beside" if off["stablehlo"]["found"] == "beside" else "check.kinds_option", lang)
        lines.append("   " + label("check.kinds_from", lang, path=companion_shown(off["stablehlo"], lang), how=how))
    found = _findings(off)
    mismatches = [x for x in found if x.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]
    for x in mismatches:
        lines.extend(_indented(x, lang))
    if mismatches:
        graph = f.get("graph")
        arg = _arg(f["path"]) + (f" --graph {graph['index']}" if isinstance(graph, dict) else "")
        # no JAX code for another frontend's graph (PyTorch/XLA): its fixes say what its users change
        key = "check.offload_details_graph" if f.get("provenance", {}).get("frontend") else "check.offload_details"
        lines.append("      " + label(key, lang, arg=arg))
    for x in found:
        if x.kind is FindingKind.OFFLOAD_PASS_FAILURE:
            lines.extend(_indented(x, lang))
    details = details_of(off)
    if not details["error"] and not details.get("failures"):
        lines.append("   " + label("check.offload_clean", lang))
    for w in details["warnings"][:5]:
        lines.append("   " + label("check.warning", lang, warning=in_lang(w, lang)))
    if len(details["warnings"]) > 5:
        lines.append("   " + label("check.more_warnings", lang, n=len(details["warnings"]) - 5))
    if f.get("provenance", {}).get("note"):
        lines.append("   " + label("check.note", lang, note=in_lang(f["provenance"]["note"], lang)))
    if f.get("confirm") is not None:  # --confirm's: the oracle's modules (and dataclasses) load for it only
        from ..oracle.confirmation import confirmation_of
        from .confirm import confirm_lines

        lines.extend(confirm_lines(confirmation_of(f["confirm"]), "   ", lang))
    return "\n".join(lines)


def _findings(doc: dict[str, Any]) -> list[Finding]:
    """The typed findings of a per-file document (``offload`` or ``explain``): its ``diagnostics``' report."""
    report = report_of(doc["diagnostics"])
    return list(report.findings) if report is not None else []


def _indented(finding: Finding, lang: str) -> list[str]:
    from .finding_text import render_finding

    return ["   " + line for line in render_finding(finding, lang)]


def _arg(path: str) -> str:
    """A path as a command line argument a user can run: stdin is '-', others shell-quoted."""
    from ..base.escape import shell_arg  # a name with a newline or U+202E cannot forge a line

    return "-" if path == "<stdin>" else shell_arg(path)


def _log_text(f: dict[str, Any], lang: str) -> str:
    findings = _findings(f["explain"])
    if not findings:
        return "   " + label("check.no_xla_error", lang)
    lines = []
    not_shown = f["explain"].get("not_shown")
    for x in findings:
        lines.extend(_indented(x, lang))
    if not_shown:
        n = not_shown["messages"]
        lines.append("   " + label("check.not_shown_one" if n == 1 else "check.not_shown", lang, n=n,
                                    limit=not_shown["distinct_limit"]))
    option = "" if lang == "en" else f" --lang {lang}"  # the details in the language of this report
    lines.append("   " + label("check.explain_details", lang, arg=_arg(f["path"]), option=option))
    return "\n".join(lines)
