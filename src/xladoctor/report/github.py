"""``--format github``: a findings :class:`~xladoctor.findings.Report` as GitHub Actions
workflow commands, so each finding is an annotation on the file and line of the run's diff.

One ``::error`` (``::warning``/``::notice`` by severity) per finding, titled with the code
and XLA's name, whose message is XLA's exact text; then one ``::notice`` with its fixes.
Escaping is GitHub's (actions/toolkit ``command.ts``): in the message ``%``, ``\\r`` and
``\\n`` become ``%25``, ``%0D``, ``%0A``; in a property ``:`` and ``,`` also become ``%3A``
and ``%2C``.  File paths are relative to the working directory (the checkout) when inside it.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from ..base.labels import label
from ..findings.model import Finding, Fix, Report, Severity

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **props: str | int | None) -> str:
    """``::command k=v,k=v::message`` with GitHub's escaping; properties that are None are left out."""
    given = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{command}{' ' + given if given else ''}::{escape_data(message)}"


def _file(path: str | None, root: Path) -> str | None:
    if not path or path.startswith("<"):
        return None
    full = Path(path) if os.path.isabs(path) else root / path
    try:
        return full.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(full.resolve())


def _fix_lines(fix: Fix) -> str:
    text = fix.text
    if fix.command:
        text += f"\n$ {shlex.join(fix.command)}"
    if fix.code:
        text += f"\n{fix.code}"
    return text


def finding_commands(f: Finding, root: Path) -> list[str]:
    """The annotation for one finding and, when it has fixes, the notice that carries them."""
    file = _file(f.location.path, root)
    line = f.location.line if file is not None else None
    col = f.location.column if line is not None else None
    times = f" (x{f.count})" if f.count > 1 else ""
    message = f.message + ("\n" + label("ci.python_source_at", file=f.source.file, line=f.source.line) if f.source else "")
    out = [workflow_command(_COMMAND[f.severity], message, file=file, line=line, col=col,
                            title=f"{f.code} {f.name}{times}")]
    if f.fixes:
        out.append(workflow_command("notice", "\n".join(_fix_lines(x) for x in f.fixes), file=file, line=line,
                                    title=f"{f.code} fix"))
    return out


def render_github(report: Report, cwd: str | None = None) -> str:
    """Every finding's workflow commands, then one ``::error`` per input that could not be read."""
    root = Path(cwd or os.getcwd()).resolve()
    lines = [c for f in report.findings for c in finding_commands(f, root)]
    lines += [workflow_command("error", e, **_input_error_at(e, root), title=label("ci.input_error"))
              for e in report.input_errors]
    return "".join(line + "\n" for line in lines)


_LOCATED = re.compile(r"(.+?):(\d+):(\d+): ", re.S)


def _input_error_at(error: str, root: Path) -> dict[str, str | int | None]:
    """``file``/``line``/``col`` of an input error that starts ``PATH:LINE:COL: `` (every one
    does) when PATH is a file: a committed module that does not parse is annotated on its line in
    the diff, as findings are, not only in the run's summary.  A missing file has no line to mark."""
    m = _LOCATED.match(error)
    if m is None or not os.path.isfile(Path(m[1]) if os.path.isabs(m[1]) else root / m[1]):
        return {}
    return {"file": _file(m[1], root), "line": int(m[2]), "col": int(m[3])}
