"""The text of ``xladoctor fleet``: the summary of many jobs' logs and dumps (``route/fleet.py``'s
``summarise``), by code and by job; words from the labels' ``[fleet]``, in ``lang``."""

from __future__ import annotations

from typing import Any

from ..base.labels import label
from ..base.labels.glossary import count


def render_text(doc: dict[str, Any], engine: str, lang: str = "en") -> str:
    """The fleet summary; words from the labels' ``[fleet]``, in ``lang``."""
    # what the logs printed and what the analysis predicts from modules are told apart (issue 38)
    found = label("fleet.logged", lang, messages=count(doc["logged"], "error_message", lang))
    if doc["predicted"]:
        found += label("fleet.predicted", lang, n=doc["predicted"])
    lines = [label("fleet.summary", lang, files=count(doc["files"], "file", lang), jobs=count(doc["jobs"], "job", lang),
                   engine=engine, findings=found)
             # as check's tally: files the walk found and left out (XLA's side files, buffer assignments)
             + (label("fleet.skipped", lang, n=doc["skipped"]) if doc.get("skipped") else "")]
    if doc["by_code"]:
        lines.append("")
        lines.append(label("fleet.by_code", lang))
        for code, c in doc["by_code"].items():
            jobs = ", ".join(c["jobs"][:5])
            if len(c["jobs"]) > 5:
                jobs += " " + label("fleet.and_more", lang, n=len(c["jobs"]) - 5)
            lines.append("  " + label("fleet.code", lang, code=code, name=c["name"], count=c["count"],
                                      files=count(c["files"], "file", lang), jobs=count(len(c["jobs"]), "job", lang),
                                      names=jobs) + _predicted(c, lang))
            lines.append("      " + label("fleet.first_seen", lang, where=_where(c["first_seen"], lang)))
            lines.append("      " + label("fleet.last_seen", lang, where=_where(c["last_seen"], lang)))
        lines.append("")
        lines.append(label("fleet.by_job", lang))
        for job, j in doc["by_job"].items():
            codes = ", ".join(f"{k} x{v}" for k, v in sorted(j["codes"].items())) or label("fleet.no_error", lang)
            more = " " + label("fleet.not_shown", lang, n=j["not_shown"]) if j.get("not_shown") else ""
            lines.append("  " + label("fleet.job", lang, job=job, files=count(j["files"], "file", lang), codes=codes)
                         + more)
    if doc["errors"]:
        lines.append(label("fleet.unreadable", lang, files=count(len(doc["errors"]), "file", lang)))
    lines.append(label("fleet.details", lang))
    return "\n".join(lines) + "\n"


def _predicted(c: dict[str, Any], lang: str) -> str:
    """Of a code's count, how much the analysis predicts from modules rather than a log printed."""
    if not c["predicted"]:
        return ""
    if c["predicted"] == c["count"]:
        return label("fleet.code_all_predicted", lang)
    return label("fleet.code_some_predicted", lang, n=c["predicted"])


def _where(w: dict[str, Any], lang: str = "en") -> str:
    line = f":{w['line']}" if w.get("line") else ""
    return label("fleet.where", lang, path=w["path"], line=line, job=w["job"])
