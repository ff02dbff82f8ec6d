"""The fuzz campaign's targets for the fifth hostile round (h35h): what that round found, generated.

* ``encodings``: a log or a module written as UTF-8, UTF-16 or UTF-32 with its byte-order mark,
  compressed no, one or two levels, or zipped, under a name with or without its suffix; ``explain``,
  ``check`` and ``fleet`` on it.  Judged: no internal error, an error is one line, the three agree
  (all refuse or none), and a log read through any encoding or one level of compression gives the
  codes its plain UTF-8 text gives.  Before the round, a UTF-16 log and a zipped or twice-compressed
  one were "clean", and ``explain`` scanned a compressed module as a log.
* ``layouts``: a module whose array shapes are spelled across lines and around comments (white space
  and ``/* */``, ``//`` comments put between the tokens of ``[dims]{layout}``, as XLA's lexer skips
  them), one of them often given a layout XLA's validation refuses.  Judged: when the parser reads
  the module with a layout warning, ``check``'s triage sends it to the parse (it read one line at a
  time, without comments, and said "nothing to analyse" where ``offload`` warned).

``bench/fuzz_campaign.py`` imports these and lends them its generators (``random_module``,
``mutate``, its log lines), its in-process CLI and its verdict type.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import random
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

_ENCODINGS = [("utf-8", b""), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-32-le", b"\xff\xfe\x00\x00")]
_COMPRESS = [(".gz", lambda b: gzip.compress(b, 1)), (".bz2", lambda b: bz2.compress(b, 1)),
             (".xz", lambda b: lzma.compress(b, preset=0))]


def _zip(data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("job.log", data)
    return buf.getvalue()


def encoding_input(rng: random.Random, random_module: Any, mutate: Any, log_lines: list[str]) -> dict[str, Any]:
    """A file's bytes and name, and what should come of it: ``refused`` (an archive), the plain text."""
    module = rng.random() < 0.35
    if module:
        text = random_module(rng)
    else:
        text = "\n".join(mutate(x, rng) if rng.random() < 0.3 else x
                         for x in (rng.choice(log_lines) for _ in range(rng.randint(1, 6))))
    encoding, bom = rng.choice(_ENCODINGS)
    data = bom + text.encode(encoding, "surrogatepass")
    suffix = ".hlo" if module else ".log"
    refused = False
    r = rng.random()
    if r < 0.45:
        ext, compress = rng.choice(_COMPRESS)
        data = compress(data)
        if rng.random() < 0.2:  # twice: refused, whatever the suffix
            data, refused = rng.choice(_COMPRESS)[1](data), True
        suffix += ext if rng.random() < 0.7 else ""
    elif r < 0.55:
        data, refused = _zip(data), True  # no .zip suffix: check would list a .zip as skipped
    return {"name": "job" + suffix, "data": data, "refused": refused, "module": module, "text": text,
            "encoding": encoding}


def _codes(doc: dict[str, Any]) -> list[str]:
    return sorted(f["code"] for f in doc.get("diagnostics", {}).get("findings", ()))


def run_encodings(case: dict[str, Any], cli: Any, cli_fault: Any, outcome: Any) -> Any:
    with tempfile.TemporaryDirectory(prefix="xladoctor-fuzz-enc-") as d:
        path = os.path.join(d, case["name"])
        Path(path).write_bytes(case["data"])
        plain = os.path.join(d, "plain" + (".hlo" if case["module"] else ".log"))
        Path(plain).write_bytes(case["text"].encode("utf-8", "surrogatepass"))
        rcs: dict[str, int] = {}
        docs: dict[str, Any] = {}
        for name, argv in (("explain", ["explain", "--json", path]), ("check", ["check", "--json", path]),
                           ("fleet", ["fleet", path]), ("plain", ["explain", "--json", plain])):
            rc, out, err = cli(argv)
            fault = cli_fault(rc, out, err)
            if fault is not None:
                return outcome("crash", f"{name} on {case['name']} ({case['encoding']}): {fault}")
            if rc == 2 and name in ("explain", "plain") and len(err.strip().splitlines()) != 1:
                return outcome("crash", f"{name}: the error is not one line: {err[:300]!r}")
            rcs[name] = rc
            if rc != 2 and "--json" in argv:
                docs[name] = json.loads(out)
    refused = {k for k in ("explain", "check", "fleet") if rcs[k] == 2}
    if case["refused"] and refused != {"explain", "check", "fleet"}:
        return outcome("disagree", f"an archive read by {sorted({'explain', 'check', 'fleet'} - refused)}: {rcs}")
    if refused not in (set(), {"explain", "check", "fleet"}):
        return outcome("disagree", f"{case['name']} ({case['encoding']}) refused by {sorted(refused)} only: {rcs}")
    if not refused and not case["module"]:
        if "plain" in docs and _codes(docs["explain"]) != _codes(docs["plain"]):
            return outcome("disagree", f"{case['name']} ({case['encoding']}): codes {_codes(docs['explain'])}, "
                                       f"its UTF-8 text's {_codes(docs['plain'])}")
    return outcome("ok")


# --------------------------------------------------------------------------- layouts spread out

_SHAPE = re.compile(r"\[[0-9,<=?]*\]\{[^{}\n]*\}")
_GAPS = [" ", "\t", "\n", "\r\n", "\n  ", "/*c*/", "/* ]{[( */", "// x\n", "// {0,0}\n", " /*\n*/ "]


def _spread(spelling: str, rng: random.Random) -> str:
    """``spelling`` with white space and comments put next to its punctuation (never inside a token)."""
    out = []
    for ch in spelling:
        if ch in "[],{}:()" and rng.random() < 0.3:
            gap = rng.choice(_GAPS)
            out.append(gap + ch if rng.random() < 0.5 else ch + gap)
        else:
            out.append(ch)
    return "".join(out)


def layout_input(rng: random.Random, random_module: Any) -> str:
    text = random_module(rng)
    shapes = list(_SHAPE.finditer(text))
    if not shapes:
        return text
    picked = rng.sample(shapes, min(len(shapes), rng.randint(1, 3)))
    for m in sorted(picked, key=lambda m: m.start(), reverse=True):
        spelling = m.group()
        if rng.random() < 0.5:  # a layout XLA's validation refuses, read with a warning
            dims = spelling[:spelling.index("]") + 1]
            rank = dims.count(",") + 1 if dims != "[]" else 0
            bad = "{" + ",".join(["0"] * max(rank, 1)) + "}" if rank >= 2 else "{9}"
            spelling = dims + bad
        text = text[:m.start()] + _spread(spelling, rng) + text[m.end():]
    return text


def run_layouts(text: str, outcome: Any) -> Any:
    from xladoctor.base.errors import InputError
    from xladoctor.syntax.hlo_parser import parse_module
    from xladoctor.triage.hlo_triage import triage

    data = text.encode("utf-8", "surrogatepass")
    try:
        t = triage(data, compiled=False)
    except Exception as e:  # the triage reads any bytes
        return outcome("crash", f"triage: {type(e).__name__}: {e}")
    try:
        module = parse_module(text, "spread.hlo")
    except InputError:
        return outcome("ok")
    if module.layout_warnings and not t.analyse:
        w = module.layout_warnings[0]
        return outcome("disagree", f"the parser warns at {w.line}:{w.column} ({w.rule}); the triage passes over it")
    return outcome("ok")
