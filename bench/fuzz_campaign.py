"""Fuzzing campaign: hostile inputs against every reader and command, jaxlib as the judge.

Usage::

    python bench/fuzz_campaign.py --seconds 600                  # all targets, all cores
    python bench/fuzz_campaign.py --seconds 60 --seed 1 --workers 1 --json out.json
    python bench/fuzz_campaign.py --targets parser,shapes --seconds 30

Inputs come from hypothesis strategies that build *valid* HLO modules and shapes
(random computations with elementwise ops, tuples, get-tuple-element, calls of
earlier computations, constants, custom calls, metadata strings with XLA's escapes,
tiled/packed/host layouts), and each valid input is then mutated a few times
(spans deleted or duplicated, hostile tokens inserted: huge and negative integers,
brackets, quotes, escapes, control and bidi characters, ``ROOT``, ``parameter(``).

Targets (each input is run by one of them):

* ``parser``   HLO text: ``parse_module`` + verifier + printer + re-parse of the print,
  compared with jaxlib's ``hlo_module_from_text`` (accept/reject, and for accepted text
  computations, instructions, opcodes, operands and shapes as the fidelity tests compare);
* ``shapes``   shape strings: ``parse_shape`` + sizes, compared with jaxlib reading the
  shape as a parameter (and as a tuple element, where XLA validates layouts);
* ``offload``  the E1200 analysis and both fixes on every module we accept;
* ``explain``  the log scanner on generated logs (real XLA messages, mutated, long lines);
* ``check``    ``xladoctor check --json DIR`` (in-process CLI) on a folder of generated files;
* ``relayout`` random shapes and bytes through ``relayout`` (API), lossless or refused.

Each worker process runs under ``RLIMIT_AS`` (default 256 MB) and a per-input time cap;
the parent watches each worker and kills it when one input runs past the cap (a hang).
jaxlib runs in a separate, uncapped child of each worker (a CHECK failure in XLA kills
only that child; the input is then recorded as "jaxlib aborts").  The report counts
inputs tried, crashes (any exception other than xladoctor's own input errors, a dead
worker), hangs, memory-cap hits and jaxlib disagreements, each disagreement classified
by a named reason (``KNOWN_DIVERGENCES``) or left unexplained.  Failing inputs are saved
under ``--save-dir``.  Exit status 1 if anything unexplained was found.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import os
import random
import re
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fuzz_issue35 import (config_input, fix_input, pair_input, run_configs, run_fixes,  # noqa: E402
                          run_pairs, zstd_module)
from fuzz_h35h import encoding_input, layout_input, run_encodings, run_layouts  # noqa: E402
TESTS = HERE.parent / "tests"

FAMILY = 16
RESTART_EXIT = 3  # a worker that hit the memory cap exits with this and is started afresh
TARGETS = ("parser", "shapes", "offload", "explain", "check", "relayout", "names", "npy", "compressed", "urls",
           "pairs", "configs", "fixes", "encodings", "layouts")

# Reasons jaxlib and xladoctor may answer differently on purpose (README "Hostile input").
# Each is (name, predicate over (ours, theirs) verdicts) and is documented there.
KNOWN_DIVERGENCES = {
    "jaxlib-aborts": "jaxlib dies (CHECK failure or stack overflow) where xladoctor refuses with a located error",
    "layout-warning": "a layout jaxlib's parser keeps and XLA's shape validation refuses, outside a tuple: read "
                      "with a warning (E0002, syntax/layout_warnings.py) and the default layout, where jaxlib "
                      "keeps the layout as written (so the two read the shape differently)",
    "validated-shape": "jaxlib's parser keeps an array shape XLA's shape validation refuses (it validates only "
                       "inside tuples and in the verifier): size over int64, negative E(n)/M(n), bad layout",
    "nesting-cap": "shapes nested deeper than 200 levels: refused by xladoctor (jaxlib segfaults near 10,000)",
    "shape-inference": "an instruction written without its shape whose opcode XLA infers a shape for and "
                       "xladoctor does not (ir/shape_inference.NOT_INFERRED: batch-norm, convolution, gather, "
                       "scatter, sort, ...; the others it infers as XLA's ShapeInference does)",
    "single-instruction": "text that is one instruction and no computation: XLA wraps it in a module named '_'; "
                          "xladoctor wants a computation",
    "entry-layout-count": "an entry_computation_layout with another number of parameters than the ENTRY: XLA's "
                          "parser takes it (its verifier refuses it), xladoctor refuses (its reports pair them)",
    "leading-zero-overflow": "an integer with leading zeros and 20+ digits: jaxlib reads it as another number",
}

_VALIDATION_MESSAGES = ("size may overflow int64", "must not be negative", "must be positive",
                        "minor_to_major", "Layout has physical shape", "split indices", "split config",
                        "dim_level_types", "_primitive_type must be", "tile dimensions",
                        "at least one dimension")


# --------------------------------------------------------------------------- generators

_ELEMENT_TYPES = ["f32", "bf16", "s32", "u8", "pred", "f16", "s8", "s4", "u32", "f64"]
_UNARY = ["negate", "abs", "exponential", "tanh", "copy", "sqrt", "not", "sign", "floor"]
_BINARY = ["add", "multiply", "subtract", "maximum", "minimum", "divide", "and", "or"]
_HOSTILE_TOKENS = [
    "(", ")", "{", "}", "[", "]", ",", "=", '"', "\\", "%", ":", "->", " ", "\n", "ROOT ", "ENTRY ",
    "parameter(", "parameter(-1)", "parameter(1000000000)", "parameter(0)", "9223372036854775807",
    "9223372036854775808", "18446744073709551616", "-1", "0", "9" * 30, "T(", "E(", "S(5)", "L(0)",
    "T(17179869184)", "E(4)", "f32[", "(" * 40, ")" * 40, "/*", "*/", "//", "\\347\\224\\250",
    "\\x1b", "\\q", "\\777", "\x1b[2J", "\u202e", "\x00", "\ufeff", "metadata={", 'source_file="',
    "to_apply=", "calls=", "body=", "condition=", "index=", "tuple(", "get-tuple-element(",
    "custom_call_target=", "$", "'", "<=", "?", "b(", "f32[9223372036854775807]",
]


def _layout_for(rng: random.Random, dims: list[int], et: str) -> str:
    if not dims and rng.random() < 0.7:
        return ""
    m2m = list(range(len(dims)))[::-1]
    if rng.random() < 0.3:
        rng.shuffle(m2m)
    attrs = ""
    if dims and rng.random() < 0.4:
        tiles = rng.choice(["(8,128)", "(8,128)(2,1)", "(128)", "(4,128)(4,1)", "(2,*)", "(1024)"])
        attrs += "T" + tiles
    if et in ("s4", "u8") and rng.random() < 0.3:
        attrs += "E(4)" if et == "s4" else "E(8)"
    if rng.random() < 0.3:
        attrs += f"S({rng.choice([0, 1, 5])})"
    inner = ",".join(map(str, m2m))
    if not attrs and rng.random() < 0.5:
        return "{" + inner + "}"
    return "{" + inner + (":" + attrs if attrs else "") + "}"


def random_array_shape(rng: random.Random) -> str:
    et = rng.choice(_ELEMENT_TYPES)
    rank = rng.choice([0, 1, 1, 2, 2, 3])
    dims = [rng.choice([1, 2, 3, 4, 8, 16, 128, 256]) for _ in range(rank)]
    return f"{et}[{','.join(map(str, dims))}]{_layout_for(rng, dims, et)}"


def random_shape(rng: random.Random, depth: int = 0) -> str:
    if depth < 3 and rng.random() < 0.2:
        return "(" + ", ".join(random_shape(rng, depth + 1) for _ in range(rng.randint(0, 3))) + ")"
    return random_array_shape(rng)


_ESCAPES = ["\\n", "\\t", "\\\\", '\\"', "\\347\\224\\250", "\\x41", "\\u00e9", "\\033[2J", "\\342\\200\\256", "\\0"]


def random_string(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 4)):
        parts.append(rng.choice(["/home/user/model.py", "jit(step)/add", "a b", "x", *_ESCAPES]))
    return '"' + "".join(parts) + '"'


def random_module(rng: random.Random) -> str:
    """A module jaxlib accepts: computations in definition order, calls only to earlier ones."""
    comps: list[tuple[str, list[str], str]] = []  # (name, param shapes, root shape)
    out_lines: list[str] = []
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}.{counter[0]}"

    def body(name: str, is_entry: bool) -> tuple[list[str], str]:
        shape = f"f32[{rng.choice([2, 4, 8])},{rng.choice([1, 128])}]"
        layout = rng.choice(["{1,0}", "{0,1}", "{1,0:T(8,128)}", "{1,0:S(5)}", ""])
        nparams = rng.randint(1, 3)
        lines, values = [], []
        param_shapes = []
        order = list(range(nparams))
        if rng.random() < 0.3:
            rng.shuffle(order)
        for i in order:
            n = fresh("p")
            meta = f", metadata={{op_name={random_string(rng)} source_file={random_string(rng)} source_line={i}}}" \
                if rng.random() < 0.3 else ""
            lines.append(f"  {n} = {shape}{layout} parameter({i}){meta}")
            values.append(n)
            param_shapes.append(shape + layout)
        for _ in range(rng.randint(0, 6)):
            kind = rng.random()
            n = fresh(rng.choice(["v", "add", "neg", "x"]))
            if kind < 0.35:
                lines.append(f"  {n} = {shape}{layout} {rng.choice(_UNARY[:2] + ['copy', 'tanh'])}({rng.choice(values)})")
            elif kind < 0.65:
                op = rng.choice(["add", "multiply", "subtract", "maximum"])
                lines.append(f"  {n} = {shape}{layout} {op}({rng.choice(values)}, {rng.choice(values)})")
            elif kind < 0.75 and comps:
                callee = rng.choice(comps)
                if len(callee[1]) <= len(values) and callee[2] == shape:
                    args = ", ".join(rng.choice(values) for _ in callee[1])
                    lines.append(f"  {n} = {shape}{{1,0}} call({args}), to_apply={callee[0]}")
                else:
                    continue
            elif kind < 0.85:
                target = random_string(rng) if rng.random() < 0.5 else '"annotate_device_placement"'
                fa = ', frontend_attributes={_xla_buffer_placement="pinned_host"}' if rng.random() < 0.5 else ""
                lines.append(f"  {n} = {shape}{layout} custom-call({rng.choice(values)}), "
                             f"custom_call_target={target}{fa}")
            else:
                t = fresh("tuple")
                k = rng.randint(1, 3)
                elems = [rng.choice(values) for _ in range(k)]
                lines.append(f"  {t} = ({', '.join([shape + layout] * k)}) tuple({', '.join(elems)})")
                lines.append(f"  {n} = {shape}{layout} get-tuple-element({t}), index={rng.randrange(k)}")
            values.append(n)
        root = fresh("r")
        lines.append(f"  ROOT {root} = {shape}{layout} {rng.choice(['negate', 'copy'])}({rng.choice(values)})")
        comps.append((name, param_shapes, shape))
        return lines, shape + layout

    for i in range(rng.randint(0, 2)):
        name = fresh("comp")
        lines, _ = body(name, False)
        out_lines += [f"{name} {{", *lines, "}", ""]
    entry = fresh("main")
    lines, _ = body(entry, True)
    out_lines += [f"ENTRY {entry} {{", *lines, "}", ""]
    header = f"HloModule {rng.choice(['m', 'jit_step', 'jit_f.1'])}"
    return header + "\n\n" + "\n".join(out_lines)


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits: delete, duplicate or replace a span, insert a hostile token."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            text = rng.choice(_HOSTILE_TOKENS)
            continue
        i = rng.randrange(len(text))
        j = min(len(text), i + rng.randint(1, 12))
        r = rng.random()
        if r < 0.25:
            text = text[:i] + text[j:]
        elif r < 0.4:
            text = text[:j] + text[i:j] + text[j:]
        elif r < 0.9:
            text = text[:i] + rng.choice(_HOSTILE_TOKENS) + text[i:]
        else:
            text = text[:i] + rng.choice(_HOSTILE_TOKENS) + text[j:]
    return text


def hypothesis_source(seed: int):
    """An endless iterator of (kind, payload) drawn by hypothesis strategies, seeded."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    batch: list[Any] = []

    @hseed(seed)
    @settings(max_examples=200, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.integers(min_value=0, max_value=2**62), st.sampled_from(["module", "shape", "log", "relayout"]),
           st.integers(min_value=0, max_value=6))
    def draw(base_seed: int, kind: str, mutations: int) -> None:
        batch.append((base_seed, kind, mutations))

    round_no = 0
    while True:
        batch.clear()
        draw._hypothesis_internal_use_seed = seed * 1_000_003 + round_no  # a new stream each round
        draw()
        round_no += 1
        # Each drawn case seeds a family of inputs (one valid base, differently mutated), which
        # keeps hypothesis's own cost per input small next to the targets'.
        for base_seed, kind, mutations in batch:
            for j in range(FAMILY):
                yield (base_seed * FAMILY + j, kind, mutations if j % 2 else j % 7)


# --------------------------------------------------------------------------- targets

class Outcome:
    __slots__ = ("status", "detail")

    def __init__(self, status: str, detail: str = ""):
        self.status = status  # ok | crash | memcap | disagree | known:<reason> | jaxlib-aborts
        self.detail = detail


class Oracle:
    """jaxlib in an uncapped child process; restarted after a CHECK failure kills it."""

    CODE = r"""
import json, sys
sys.path.insert(0, {tests!r})
import jaxlib_oracle as o
for line in sys.stdin:
    req = json.loads(line)
    try:
        if req["kind"] == "module":
            m = o.oracle_module(req["text"])
            out = {{"status": "ok", "view": o.to_jsonable(m)}}
        else:
            printed = o.jaxlib_canonical_shape(req["text"])
            try:
                o.jaxlib_canonical_shape("(" + req["text"] + ")")
                validated = True
            except Exception:
                validated = False
            out = {{"status": "ok", "printed": printed, "validated": validated}}
    except Exception as e:
        out = {{"status": "rejected", "message": str(e)[:2000]}}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def _start(self) -> None:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))  # jaxlib needs more than the cap
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", self.CODE.format(tests=str(TESTS))],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         text=True, bufsize=1)
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

    def ask(self, kind: str, text: str) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        try:
            self.proc.stdin.write(json.dumps({"kind": kind, "text": text}) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.proc.wait()
            self.proc = None
            return {"status": "aborted"}
        return json.loads(line)


def _view_ours(module) -> dict[str, Any]:
    sys.path.insert(0, str(TESTS))
    from jaxlib_oracle import OracleComputation, OracleInstruction, OracleModule, to_jsonable
    from xladoctor.syntax.async_sugar import sugared_opcode  # XLA prints async ops sugared (call-start)
    comps = tuple(OracleComputation(c.name, bool(c.is_entry), tuple(
        OracleInstruction(i.name, sugared_opcode(i), tuple(o.name for o in i.operands),
                          str(i.shape)) for i in c.instructions)) for c in module.computations)
    layout = module.entry_computation_layout
    # Through JSON, as jaxlib's answer comes: tuples become lists on both sides.
    return json.loads(json.dumps(to_jsonable(OracleModule(module.name, comps, "" if layout is None else str(layout)))))


def _first_error(message: str) -> str:
    """The 'error: ...' line of a jaxlib parse error (its message repeats the text around it)."""
    for line in message.splitlines():
        if "error: " in line:
            return line.split("error: ", 1)[1][:200]
    return message[-200:]


def _classify_reject_vs_accept(message: str) -> str | None:
    if "xladoctor does not infer the shape of" in message:
        return "known:shape-inference"
    if "entry_computation_layout has" in message:
        return "known:entry-layout-count"
    if "nested more than" in message:
        return "known:nesting-cap"
    if any(m in message for m in _VALIDATION_MESSAGES):
        return "known:validated-shape"
    return None


def run_parser(text: str, oracle: Oracle | None, with_offload: bool) -> Outcome:
    from xladoctor.base.errors import XlaDoctorError
    from xladoctor.ir.verify import verify_module
    from xladoctor.syntax.hlo_parser import parse_module
    from xladoctor.syntax.hlo_printer import print_module
    verified = False
    try:
        module = parse_module(text, "fuzz.hlo")
        ours_ok, message = True, ""
    except XlaDoctorError as e:
        module, ours_ok, message = None, False, str(e)
        if "\n" in message:
            return Outcome("crash", f"error message spans lines: {message[:200]!r}")
    if module is not None:
        view = _view_ours(module)
        printed = print_module(module)
        again = parse_module(printed, "reprint.hlo")  # our own print must read back
        if _view_ours(again) != view:
            return Outcome("crash", "our printed module reads back differently")
        try:
            verify_module(module)
            verified = True
            if with_offload:
                from xladoctor.offload import analyze_host_offload, fix_device, fix_host
                result = analyze_host_offload(module)
                if result.errors:
                    print_module(fix_host(module, result))
                    print_module(fix_device(module, result))
        except XlaDoctorError:
            pass
    if oracle is None:
        return Outcome("ok")
    theirs = oracle.ask("module", text)
    if theirs["status"] == "aborted":
        # Refused by our parser or by the verifier (XLA's own verifier would refuse it too), or read
        # with a warning naming what XLA refuses (a layout jaxlib's parser keeps and then CHECK-fails on).
        refused = not ours_ok or not verified or bool(module is not None and module.layout_warnings)
        return Outcome("known:jaxlib-aborts" if refused else "disagree",
                       "" if refused else "jaxlib aborts on text we accept and verify")
    if theirs["status"] == "rejected":
        if ours_ok:
            return Outcome("disagree", "jaxlib rejects, we accept: " + _first_error(theirs["message"]))
        return Outcome("ok")
    if not ours_ok:
        known = _classify_reject_vs_accept(message)
        if known is None and theirs["view"]["name"] == "_":
            known = "known:single-instruction"
        return Outcome(known or "disagree", "" if known else f"jaxlib accepts, we reject: {message[:200]}")
    if theirs["view"] != view:
        if module is not None and module.layout_warnings:
            return Outcome("known:layout-warning")
        return Outcome("disagree", "accepted by both but read differently")
    return Outcome("ok")


def run_shape(text: str, oracle: Oracle | None) -> Outcome:
    from xladoctor.base.errors import XlaDoctorError
    from xladoctor.ir.sizes import logical_bytes, physical_bytes
    from xladoctor.syntax.shape_parser import parse_shape
    try:
        shape = parse_shape(text)
        ours, message = str(shape), ""
    except XlaDoctorError as e:
        ours, message = None, str(e)
    if ours is not None and shape.is_array:
        try:  # sizes may be refused (over int64) for a shape XLA accepts: not a parse verdict
            logical_bytes(shape)
            physical_bytes(shape)
        except XlaDoctorError:
            pass
    if oracle is None or "//" in text or "/*" in text:
        # jaxlib is asked through a one-line module, where a comment would also hide 'parameter(0)'.
        return Outcome("ok")
    theirs = oracle.ask("shape", text)
    if theirs["status"] == "aborted":
        return Outcome("known:jaxlib-aborts" if ours is None else "disagree",
                       "" if ours is None else "jaxlib aborts on a shape we accept")
    if theirs["status"] == "rejected":
        return Outcome("ok" if ours is None else "disagree", "" if ours is None else "jaxlib rejects, we accept")
    if ours is None:
        if not theirs["validated"]:
            return Outcome("known:validated-shape")
        known = _classify_reject_vs_accept(message)
        return Outcome(known or "disagree", "" if known else f"jaxlib accepts, we reject: {message[:200]}")
    if ours != theirs["printed"]:
        if re.search(r"\b0[0-9]{19,}", text):
            return Outcome("known:leading-zero-overflow")
        return Outcome("disagree", f"printed {ours!r}, jaxlib {theirs['printed']!r}")
    return Outcome("ok")


_LOG_LINES = [
    "Tensor which is moved to host (starting from tuple.64) is returned from the entry computation but the "
    "layout for this output is not set to host memory.",
    "INVALID_ARGUMENT: expected parameter 2482 of size 5242880 (bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) but got "
    "buffer with incompatible size 1638400 (bf16[16,1280,40]{1,2,0:T(8,128)(2,1)})",
    "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.",
    "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel",
    "E1200 predicted", "\x1b[2J", "\u202e", "plain log line",
]


def run_explain(text: str) -> Outcome:
    from xladoctor.catalogue.scanner import LogScanner
    from xladoctor.report.explain_text import render_findings
    findings = LogScanner().scan_binary(io.BytesIO(text.encode("utf-8", "surrogatepass")))
    out = render_findings(findings, "fuzz.log", "en", 80, "logical")
    return _screen_safe(out)


def _screen_safe(out: str) -> Outcome:
    from xladoctor.base.escape import escape_stream_text
    # What reaches the terminal goes through the stream escaper: nothing unsafe may remain.
    shown = escape_stream_text(out)
    if any(c in shown for c in "\x1b\u202e\x00"):
        return Outcome("crash", "unsafe character reached the terminal")
    return Outcome("ok")


def run_check_dir(files: dict[str, str]) -> Outcome:
    from xladoctor.cli.main import main
    with tempfile.TemporaryDirectory(prefix="xladoctor-fuzz-") as d:
        for name, text in files.items():
            Path(d, name).write_text(text, encoding="utf-8", errors="surrogatepass")
        for argv in (["check", "--json", d], ["check", d]):
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                rc = main(argv)
            if rc not in (0, 1, 2):
                return Outcome("crash", f"exit {rc}")
            if "internal error" in err.getvalue() or "Traceback" in err.getvalue():
                return Outcome("crash", err.getvalue()[-300:])
            if "--json" in argv:
                json.loads(out.getvalue())
            elif any(c in out.getvalue() + err.getvalue() for c in "\x1b\u202e\x00"):
                return Outcome("crash", "unsafe character reached the terminal from check")
    return Outcome("ok")


def run_relayout(rng: random.Random) -> Outcome:
    import numpy as np

    from xladoctor.base.errors import XlaDoctorError
    from xladoctor.inputs.relayout import numpy_dtype, relayout, stored_size, untile
    from xladoctor.inputs.tiling_plan import RelayoutError
    from xladoctor.syntax.shape_parser import parse_shape
    et = rng.choice(["u8", "s8", "bf16", "f32", "s4", "u4", "pred"])
    dims = [rng.choice([1, 2, 3, 5, 8, 17, 128]) for _ in range(rng.choice([1, 2, 2, 3]))]
    text = f"{et}[{','.join(map(str, dims))}]"

    def layout() -> str:
        m2m = list(range(len(dims)))[::-1]
        rng.shuffle(m2m) if rng.random() < 0.4 else None
        attrs = rng.choice(["", "T(8,128)", "T(2,128)(2,1)", "T(128)", "E(4)", "T(8,128)E(4)", "T(17179869184)",
                            "L(4)", "E(8)"])
        return "{" + ",".join(map(str, m2m)) + (":" + attrs if attrs else "") + "}"
    try:
        src, dst = parse_shape(text + layout()), parse_shape(text + layout())
        n = stored_size(src, True)
        if n > 1 << 18 or stored_size(dst, True) > 1 << 20:
            return Outcome("ok")  # sizes the CLI refuses before allocating (relayout._check_output_size)
        data = bytes(rng.getrandbits(8) for _ in range(min(n, 4096))) + bytes(max(0, n - 4096))
        out = relayout(data, src, dst, allow_subtile_padding=True)
        back = relayout(out, dst, src, allow_subtile_padding=True)
        w = np.dtype(numpy_dtype(src)).itemsize
        la = untile(data, src, dtype=f"V{w}", allow_subtile_padding=True)
        lb = untile(back, src, dtype=f"V{w}", allow_subtile_padding=True)
        if la.tobytes() != lb.tobytes():
            return Outcome("crash", f"relayout {src} -> {dst} lost data without refusing")
    except (RelayoutError, XlaDoctorError):
        pass
    return Outcome("ok")


# --------------------------------------------------------------------------- hostile input kinds (issue 23)

def _cli(argv: list[str], stdin: bytes | None = None) -> tuple[int, str, str]:
    """``main(argv)`` in this process, stdout and stderr captured as the terminal would get them."""
    from xladoctor.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with redirect_stdout(out), redirect_stderr(err):
            rc = main(argv)
    finally:
        sys.stdin = old_stdin
    return rc, out.getvalue(), err.getvalue()


def _cli_fault(rc: int, out: str, err: str) -> str | None:
    """What is wrong with one run's visible result: an exit code, an internal error, unsafe text."""
    if rc not in (0, 1, 2):
        return f"exit {rc}"
    if "internal error" in err or "Traceback" in err or "MemoryError" in err:
        return err[-300:]
    try:
        (out + err).encode("utf-8")  # strict: a lone surrogate (a raw non-UTF-8 byte) would fail here
    except UnicodeEncodeError as e:
        return f"output is not UTF-8: {e}"
    if any(c in out + err for c in "\x1b\u202e\x00"):
        return "unsafe character reached the terminal"
    return None


_NAME_PIECES = ["a", ".hlo", ".log", ".txt", "\n", "\n\n1 file checked, 0 findings\n", "\u202e", "\u2066",
                "\x1b[2J", "\t", "'", '"', "$(x)", "`", "\\", " ", "%", "#", "?", "&", "<b>", "..", "-",
                "\u00e9", "\u0645", "\ufeff", "\x7f", "\x85"]


def random_file_name(rng: random.Random) -> bytes:
    """A file name as the kernel stores it: any bytes but '/' and NUL, often not UTF-8, <= 255 bytes."""
    parts: list[bytes] = []
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.5:
            parts.append(rng.choice(_NAME_PIECES).encode("utf-8"))
        elif r < 0.8:
            parts.append(bytes(rng.choice([b for b in range(1, 256) if b != 0x2F]) for _ in range(rng.randint(1, 4))))
        else:
            parts.append(rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe2\x80", b"\x80\x80"]))
    name = b"".join(parts)[:255]
    return name if name not in (b".", b"..", b"") else b"x" + name


def run_names(rng: random.Random) -> Outcome:
    """A checked folder whose file names are hostile: text, --json, --format sarif and --html stay valid."""
    texts = [random_module(rng), "\n".join(rng.choice(_LOG_LINES) for _ in range(3)), _E1200_MODULE]
    with tempfile.TemporaryDirectory(prefix="xladoctor-fuzz-") as d:
        for _ in range(rng.randint(1, 4)):
            path = os.path.join(os.fsencode(d), random_file_name(rng))
            with open(path, "wb") as f:
                f.write(rng.choice(texts).encode("utf-8"))
        html = os.path.join(d + "-report.html")
        for argv in (["check", d], ["check", "--json", d], ["check", "--format", "sarif", d],
                     ["check", "--html", html, d]):
            rc, out, err = _cli(argv)
            fault = _cli_fault(rc, out, err)
            if fault:
                return Outcome("crash", f"{' '.join(argv[:2])}: {fault}")
            if argv[1] in ("--json", "--format"):
                doc = json.loads(out)
                if argv[1] == "--format":
                    for run in doc["runs"]:
                        for res in run["results"]:
                            for loc in res.get("locations", []):
                                uri = loc["physicalLocation"]["artifactLocation"]["uri"]
                                if not re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*", uri):
                                    return Outcome("crash", f"SARIF URI not percent-encoded: {uri!r}")
            elif argv[1] == "--html":
                try:
                    page = Path(html).read_bytes().decode("utf-8")
                finally:
                    if os.path.exists(html):
                        os.unlink(html)
                if "\u202e" in page or "\u2066" in page:
                    return Outcome("crash", "a bidi control reached the HTML page raw")
            elif len(re.findall(r"(?m)^\d+ files? checked", out)) != 1:
                return Outcome("crash", "a file name forged a summary line")
    return Outcome("ok")


def random_npy(rng: random.Random) -> tuple[bytes, str]:
    """An .npy file (often malformed: huge or negative dims, bad descr, short data) and a --from for it."""
    descr = rng.choice(["<f4", "<u2", "|u1", "<f8", "|V2", "O", "<c8", ">i4", "<U3", "garbage", "[('a','<f4')]"])
    dims = [rng.choice([0, 1, 2, 3, 8, 128, -1, 2**31, 2**40, 2**62, 2**64]) for _ in range(rng.randint(0, 3))]
    header = {"descr": descr, "fortran_order": rng.random() < 0.2, "shape": tuple(dims)}
    text = repr(header) if rng.random() < 0.9 else mutate(repr(header), rng)
    version = rng.choice([(1, 0), (1, 0), (2, 0), (3, 0), (9, 9)])
    fmt = "<H" if version[0] == 1 else "<I"
    body = (text + " " * (63 - (len(text) + 12) % 64) + "\n").encode("latin-1", "replace")
    hlen = len(body) if rng.random() < 0.9 else rng.choice([0, 1, 2**15, 2**16 - 1])
    try:
        head = b"\x93NUMPY" + bytes(version) + struct.pack(fmt, hlen)
    except struct.error:
        head = b"\x93NUMPY\x01\x00\xff\xff"
    data = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 4, 16, 64, 4096])))
    et = rng.choice(["f32", "u16", "u8", "f64", "bf16", "s32"])
    shape_dims = [d if 0 <= d < 2**20 else 4 for d in dims]
    return head + body + data, f"{et}[{','.join(map(str, shape_dims))}]"


def run_npy(rng: random.Random) -> Outcome:
    """``relayout`` reading a hostile .npy: a located error or a correct copy, never a big allocation."""
    blob, shape = random_npy(rng)
    with tempfile.TemporaryDirectory(prefix="xladoctor-fuzz-") as d:
        src, dst = os.path.join(d, "in.npy"), os.path.join(d, "out.npy")
        Path(src).write_bytes(blob)
        layout = rng.choice(["", "{0}", "{0:T(8)}", "{0:T(128)}"]) if shape.count(",") == 0 else ""
        rc, out, err = _cli(["relayout", "--from", shape + layout, "--to", shape, src, dst])
        fault = _cli_fault(rc, out, err)
        if fault:
            return Outcome("crash", f"relayout .npy: {fault}")
        if rc == 2 and len(err.strip().splitlines()) != 1:
            return Outcome("crash", f"relayout .npy error is not one line: {err[:300]!r}")
    return Outcome("ok")


def run_compressed(rng: random.Random) -> Outcome:
    """``fleet``'s per-file scan of a compressed input: bombs, truncated and corrupt streams, HLO or logs."""
    import bz2
    import gzip
    import lzma

    from xladoctor.route import fleet
    # Low compression levels: lzma's default preset alone takes ~100 MB, near the worker's cap.
    codecs = [(".gz", lambda b: gzip.compress(b, 1)), (".bz2", lambda b: bz2.compress(b, 1)),
              (".xz", lambda b: lzma.compress(b, preset=0))]
    zstd = zstd_module()
    if zstd is not None:  # issue 35: .zst read end to end (compression.zstd or its backport)
        codecs += [(".zst", lambda b: zstd.compress(b, 1))] * 2
    ext, compress = rng.choice(codecs)
    r = rng.random()
    if r < 0.3:  # bombs past the 4 MiB bound set below (the generator's copy is dropped before the scan)
        plain = b"\n" * rng.choice([1 << 20, 6 << 20]) if rng.random() < 0.5 else \
            b"HloModule m\n" + b" " * (6 << 20)
    elif r < 0.6:
        plain = random_module(rng).encode("utf-8", "surrogatepass")
    else:
        plain = "\n".join(mutate(rng.choice(_LOG_LINES), rng) for _ in range(5)).encode("utf-8", "surrogatepass")
    blob = compress(plain)
    del plain
    if rng.random() < 0.3:
        blob = blob[:rng.randint(0, len(blob))]
    elif rng.random() < 0.2:
        i = rng.randrange(len(blob))
        blob = blob[:i] + bytes([rng.getrandbits(8)]) + blob[i + 1:]
    old = os.environ.get("XLADOCTOR_MAX_INPUT_BYTES")
    os.environ["XLADOCTOR_MAX_INPUT_BYTES"] = str(4 << 20)  # bombs meet the limit well inside the memory cap
    try:
        if rng.random() < 0.25:  # on stdin, the compression seen in the bytes (check/explain -)
            rc, out, err = _cli([rng.choice(("explain", "check")), "-"], stdin=blob)
            fault = _cli_fault(rc, out, err)
            if fault is None and rc == 2 and len(err.strip().splitlines()) != 1:
                fault = f"the error is not one line: {err[:300]!r}"
            return Outcome("crash", f"compressed stdin ({ext}): {fault}") if fault else Outcome("ok")
        with tempfile.TemporaryDirectory(prefix="xladoctor-fuzz-") as d:
            path = os.path.join(d, "job", "x.log" + ext)
            os.mkdir(os.path.dirname(path))
            Path(path).write_bytes(blob)
            s = fleet.scan_one(path, "job")
    finally:
        if old is None:
            os.environ.pop("XLADOCTOR_MAX_INPUT_BYTES", None)
        else:
            os.environ["XLADOCTOR_MAX_INPUT_BYTES"] = old
    if s.error is not None and ("cannot check: MemoryError" in s.error or "\n" in s.error):
        return Outcome("crash", f"compressed input: {s.error[:300]}")
    return Outcome("ok")


def random_url(rng: random.Random) -> str:
    """A fleet pattern with a scheme: unknown, uninstalled, local, or network ones aimed at a closed port."""
    # Not http(s), hdfs, sftp, github or dask: their fsspec back ends import aiohttp, pyarrow, paramiko,
    # requests or distributed, hundreds of MB of address space taken under the worker's cap for good
    # (the next inputs then meet MemoryErrors that are the import's, not theirs).
    scheme = rng.choice(["bogus", "s3", "gs", "gcs", "az", "ftp", "zip", "tar", "file", "memory",
                         "simplecache", "", "x" * 40, "ZIP", "s3a"])
    host = rng.choice(["127.0.0.1:1", "", "bucket", "[::1]:1", "%", "a b", "\u202e", "\n"])
    path = rng.choice(["*.log", "**/*.log", "", "a/../../etc", "?", "[", "x" * 300, "%00", "\x00"])
    url = f"{scheme}://{host}/{path}"
    if scheme in ("ftp", "simplecache"):
        url = f"{scheme}://127.0.0.1:1/{path}"  # nothing listens there: refused at once, no DNS
    return mutate(url, rng) if rng.random() < 0.3 and "ftp" not in url else url


def run_urls(rng: random.Random) -> Outcome:
    """``fleet``'s listing of a URL pattern: a list of inputs or one usage error, never an internal error."""
    from xladoctor.route import fleet
    from xladoctor.base.errors import XlaDoctorError
    url = random_url(rng)
    if not fleet.is_url(url) or url.startswith("file://"):
        # a local glob (a mutation took the scheme away, or file://, which expand walks as a local
        # path): '///**' walks the whole disk; tests/test_hostile_input_2.py checks file:// folders
        return Outcome("ok")
    try:
        fleet.expand([url])
    except XlaDoctorError as e:
        if "\n" in str(e):
            return Outcome("crash", f"URL error is not one line: {str(e)[:300]!r}")
    return Outcome("ok")


_E1200_MODULE = """HloModule m, entry_computation_layout={(f32[16,256]{1,0})->(f32[16,256]{1,0})}

ENTRY e {
  p = f32[16,256]{1,0} parameter(0)
  c = f32[16,256]{1,0} custom-call(p), custom_call_target="MoveToHost"
  ROOT t = (f32[16,256]{1,0}) tuple(c)
}
"""

def run_pairs_of(rng: random.Random) -> Outcome:
    return run_pairs(pair_input(rng, random_module, mutate), _cli, _cli_fault, Outcome)


def run_configs_of(rng: random.Random) -> Outcome:
    log = "\n".join(rng.choice(_LOG_LINES) for _ in range(3))
    return run_configs(config_input(rng, mutate), log, _cli, _cli_fault, Outcome)


def run_fixes_of(rng: random.Random) -> Outcome:
    return run_fixes(fix_input(rng), Outcome)


def run_encodings_of(rng: random.Random) -> Outcome:
    return run_encodings(encoding_input(rng, random_module, mutate, _LOG_LINES), _cli, _cli_fault, Outcome)


def run_layouts_of(rng: random.Random) -> Outcome:
    return run_layouts(layout_input(rng, random_module), Outcome)


HOSTILE_TARGETS = {"names": run_names, "npy": run_npy, "compressed": run_compressed, "urls": run_urls,
                   "pairs": run_pairs_of, "configs": run_configs_of, "fixes": run_fixes_of,
                   "encodings": run_encodings_of, "layouts": run_layouts_of}
"""Issue 23's input kinds: each takes a seeded Random (the stream's "relayout" family lends them
its draws with mutations 4 and 5, a quarter to each)."""


# --------------------------------------------------------------------------- worker

def _input_for(kind: str, base_seed: int, mutations: int) -> tuple[str, Any]:
    rng = random.Random(base_seed)
    if kind == "module":
        text = random_module(rng)
        for _ in range(mutations if mutations < 4 else 1):
            text = mutate(text, rng)
        return "parser", text
    if kind == "shape":
        text = random_shape(rng)
        for _ in range(mutations if mutations < 3 else 0):
            text = mutate(text, rng)
        return "shapes", text
    if kind == "log":
        lines = [rng.choice(_LOG_LINES) for _ in range(rng.randint(1, 8))]
        text = "\n".join(mutate(x, rng) if rng.random() < 0.5 else x for x in lines)
        if mutations == 6:
            return "check", {"a.hlo": random_module(rng), "b.log": text, "c.hlo": mutate(random_module(rng), rng),
                             "d.txt": "\ufeff" + random_module(rng), "e\x1b[2J\u202e\n.log": mutate(text, rng)}
        return "explain", text
    if mutations in (4, 5):  # issue 23's hostile input kinds share the relayout family's draws
        hostile = ("names", "npy", "compressed", "urls", "pairs", "configs", "fixes", "encodings", "layouts")
        return hostile[rng.randrange(len(hostile))], rng
    return "relayout", rng


def _worker(wid: int, seed: int, targets: tuple[str, ...], mem_mb: int, timeout_s: float,
            current: Any, queue: Any, stop_at: float, use_jaxlib: bool, skip: int, max_inputs: int) -> None:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Import everything before the cap, so the cap measures the work on each input.
    import numpy  # noqa: F401
    try:  # bf16/s4 relayouts load it: several seconds under load, past the time cap, if done under the cap
        import ml_dtypes  # noqa: F401
    except ImportError:
        pass

    import xladoctor.cli.main  # noqa: F401
    import xladoctor.offload  # noqa: F401
    import xladoctor.report.explain_text  # noqa: F401
    oracle = Oracle() if use_jaxlib else None
    if oracle is not None:
        oracle.ask("shape", "f32[2]")  # start it before the cap
    queue.put(("counts", wid, {}))  # starts the queue's feeder thread (its stack) before the cap
    import itertools
    source = hypothesis_source(seed * 1000 + wid)
    source = itertools.chain([next(source)], source)  # hypothesis loads its native parts before the cap
    if mem_mb:
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, resource.RLIM_INFINITY))

    class Hang(Exception):
        pass

    def on_alarm(signum, frame):
        # Python drops an exception raised inside a gc callback (hypothesis installs one) with
        # "Exception ignored": fire again shortly, so a swallowed time cap still ends the input.
        signal.setitimer(signal.ITIMER_REAL, 0.25)
        raise Hang()
    signal.signal(signal.SIGALRM, on_alarm)
    parent = os.getppid()
    try:
        _worker_loop(wid, source, targets, timeout_s, current, queue, stop_at, skip, max_inputs, oracle, parent, Hang)
    except MemoryError:  # outside a target (generation, bookkeeping): the cap, not a bug; start afresh
        os._exit(RESTART_EXIT)


def _worker_loop(wid: int, source: Any, targets: tuple[str, ...], timeout_s: float, current: Any, queue: Any,
                 stop_at: float, skip: int, max_inputs: int, oracle: "Oracle | None", parent: int, Hang: type) -> None:
    counts: dict[str, int] = {}
    n = 0
    for base_seed, kind, mutations in source:
        if time.time() >= stop_at or (max_inputs and n >= max_inputs):
            break
        n += 1
        if n <= skip:
            if n % 1000 == 0:
                current.value = n  # regenerating skipped inputs is progress, not a hang
            continue
        target, payload = _input_for(kind, base_seed, mutations)
        if target not in targets:
            if target == "parser" and "offload" in targets:
                pass
            else:
                continue
        current.value = n
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            if target == "parser":
                outcome = run_parser(payload, oracle if "parser" in targets else None, "offload" in targets)
            elif target == "shapes":
                outcome = run_shape(payload, oracle)
            elif target == "explain":
                outcome = run_explain(payload)
            elif target == "check":
                outcome = run_check_dir(payload)
            elif target in HOSTILE_TARGETS:
                outcome = HOSTILE_TARGETS[target](payload)
            else:
                outcome = run_relayout(payload)
        except Hang:
            outcome = Outcome("hang", "over the time cap")
        except MemoryError:
            outcome = Outcome("memcap", "MemoryError under the cap")
        except RecursionError:
            outcome = Outcome("crash", "RecursionError")
        except Exception as e:  # anything else is a bug
            outcome = Outcome("crash", "".join(traceback.format_exception_only(type(e), e)).strip()[:300])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        counts[target] = counts.get(target, 0) + 1
        if outcome.status != "ok":
            shown = payload if isinstance(payload, (str, dict)) else f"{target} seed {base_seed}"
            queue.put(("event", wid, outcome.status, target, outcome.detail, shown))
        if outcome.status == "memcap":
            # A failed allocation under RLIMIT_AS can leave CPython or numpy in a bad state (later
            # SystemError, TypeError, SIGSEGV on inputs that pass in a fresh process): start afresh.
            queue.put(("counts", wid, dict(counts)))
            queue.close()
            queue.join_thread()
            os._exit(RESTART_EXIT)
        if n % 200 == 0:
            queue.put(("counts", wid, dict(counts)))
            counts.clear()
            if os.getppid() != parent:
                break  # the campaign was stopped: do not run on as an orphan
    queue.put(("counts", wid, dict(counts)))
    queue.put(("done", wid, n))


class _PrintQueue:
    """The campaign queue's interface for ``--replay``: events are printed, counts dropped."""

    def put(self, msg: tuple) -> None:
        if msg[0] == "event":
            _, wid, status, target, detail, payload = msg
            print(json.dumps({"status": status, "target": target, "detail": detail,
                              "input": payload if isinstance(payload, (str, dict)) else repr(payload)},
                             ensure_ascii=True), flush=True)
        elif msg[0] == "done":
            print(f"replayed up to input #{msg[2]}", flush=True)

    def close(self) -> None:
        pass

    def join_thread(self) -> None:
        pass


class _Counter:
    value = 0


def replay(spec: str, seed: int, targets: tuple[str, ...], mem_mb: int, timeout_s: float, use_jaxlib: bool) -> int:
    """Run inputs FROM..TO of worker WID's stream in this process, as that worker ran them.

    A worker that dies (SIGSEGV, a cap hit) may owe it to the inputs before: the same
    sequence under the same cap reproduces it: a signal that killed the worker kills this
    process too (shell status 128+n), a cap hit exits with RESTART_EXIT after printing it."""
    wid, first, last = (int(x) for x in spec.split(":"))
    _worker(wid, seed, targets, mem_mb, timeout_s, _Counter(), _PrintQueue(), float("inf"), use_jaxlib,
            first - 1, last)
    return 0


# --------------------------------------------------------------------------- parent

def _history(seed: int, wid: int, first: int, last: int) -> str:
    """Where a dead worker's inputs can be replayed: its stream and the inputs it ran since it started.

    A crash after earlier inputs (a failed allocation under the cap, a corrupted interpreter) may
    pass alone; ``--replay`` runs the same sequence in one process under the same cap."""
    return f"input #{last}; replay: --seed {seed} --replay {wid}:{first + 1}:{last}"


def campaign(seconds: float, seed: int, workers: int, targets: tuple[str, ...], mem_mb: int, timeout_s: float,
             use_jaxlib: bool, save_dir: Path | None, progress: Callable[[str], None] | None = None,
             max_inputs: int = 0) -> dict:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    stop_at = time.time() + seconds
    tried: dict[str, int] = {}
    events: dict[str, int] = {}
    examples: dict[str, list[dict]] = {}
    procs: dict[int, tuple[Any, Any, list]] = {}

    def start(wid: int, skip: int) -> None:
        current = ctx.Value("q", 0)
        p = ctx.Process(target=_worker, args=(wid, seed, targets, mem_mb, timeout_s, current, queue, stop_at,
                                              use_jaxlib, skip, max_inputs), daemon=True)
        p.start()
        procs[wid] = (p, current, [time.time(), 0, skip])

    def record(status: str, target: str, detail: str, payload: Any) -> None:
        key = status if status.startswith("known:") else f"{status}"
        events[key] = events.get(key, 0) + 1
        ex = examples.setdefault(key, [])
        kinds = {e["detail"][:50] for e in ex}
        if len(ex) < 5 or (detail[:50] not in kinds and len(ex) < 40):  # the first of each kind too
            ex.append({"target": target, "detail": detail, "input": payload if isinstance(payload, str)
                       else repr(payload)[:2000]})
            if save_dir is not None and not key.startswith("known:"):
                save_dir.mkdir(parents=True, exist_ok=True)
                (save_dir / f"{key}-{events[key]}.txt").write_text(
                    json.dumps(ex[-1], ensure_ascii=False, indent=1), encoding="utf-8", errors="surrogatepass")

    for wid in range(workers):
        start(wid, 0)
    done: set[int] = set()
    last_report = time.time()
    while len(done) < workers:
        try:
            msg = queue.get(timeout=0.5)
            if msg[0] == "counts":
                for k, v in msg[2].items():
                    tried[k] = tried.get(k, 0) + v
            elif msg[0] == "event":
                _, wid, status, target, detail, payload = msg
                record(status, target, detail, payload)
            elif msg[0] == "done":
                done.add(msg[1])

        except Exception:
            pass
        now = time.time()
        for wid, (p, current, seen) in list(procs.items()):
            if wid in done:
                continue
            if current.value != seen[1]:
                seen[0], seen[1] = now, current.value
            stuck = now - seen[0] > timeout_s * 4 + 10
            if not p.is_alive() and p.exitcode == RESTART_EXIT:
                p.join()
                if now < stop_at:
                    start(wid, max(seen[2], current.value))
                else:
                    done.add(wid)
                continue
            if not p.is_alive() or stuck:
                if stuck:
                    p.kill()
                    p.join()
                    record("hang", "?", f"worker {wid} stuck on input {current.value}",
                           _history(seed, wid, seen[2], current.value))
                elif now < stop_at:
                    record("crash", "?", f"worker {wid} died (exit {p.exitcode}) on input {current.value}",
                           _history(seed, wid, seen[2], current.value))
                if now < stop_at:
                    start(wid, max(seen[2], current.value))
                else:
                    done.add(wid)
        if progress and now - last_report > 30:
            last_report = now
            progress(f"{int(stop_at - now)} s left: {sum(tried.values()):,} inputs, events {events}")
    unexplained = {k: v for k, v in events.items() if not k.startswith("known:")}
    return {"seconds": seconds, "seed": seed, "workers": workers, "memory_cap_mb": mem_mb,
            "time_cap_s": timeout_s, "targets": list(targets), "jaxlib": use_jaxlib,
            "inputs": sum(tried.values()), "inputs_by_target": tried,
            "crashes": events.get("crash", 0), "hangs": events.get("hang", 0), "memory_cap_hits": events.get("memcap", 0),
            "disagreements": events.get("disagree", 0),
            "known_divergences": {k[6:]: v for k, v in events.items() if k.startswith("known:")},
            "known_divergence_reasons": KNOWN_DIVERGENCES,
            "unexplained": sum(unexplained.values()), "examples": examples}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-inputs", type=int, default=0,
                    help="stop each worker after this many inputs (with a fixed seed: a fixed input set)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--mem-mb", type=int, default=256, help="RLIMIT_AS of each worker (0: none)")
    ap.add_argument("--timeout-s", type=float, default=5.0, help="time cap per input")
    ap.add_argument("--no-jaxlib", action="store_true", help="no differential comparison (jaxlib not needed)")
    ap.add_argument("--save-dir", type=Path, help="write every unexplained finding here")
    ap.add_argument("--json", type=Path, help="write the report here")
    ap.add_argument("--replay", metavar="WID:FROM:TO",
                    help="run inputs FROM..TO of worker WID's stream here (as a crash report names them)")
    args = ap.parse_args(argv)
    targets = tuple(t for t in args.targets.split(",") if t)
    bad = [t for t in targets if t not in TARGETS]
    if bad:
        ap.error(f"unknown target(s) {bad}; choose from {', '.join(TARGETS)}")
    use_jaxlib = not args.no_jaxlib
    if use_jaxlib:
        try:
            import jaxlib  # noqa: F401
        except ImportError:
            use_jaxlib = False
    if args.replay:
        return replay(args.replay, args.seed, targets, args.mem_mb, args.timeout_s, use_jaxlib)
    report = campaign(args.seconds, args.seed, args.workers, targets, args.mem_mb, args.timeout_s, use_jaxlib,
                      args.save_dir, progress=lambda s: print(s, file=sys.stderr, flush=True),
                      max_inputs=args.max_inputs)
    text = json.dumps(report, indent=1, ensure_ascii=True)
    if args.json:
        args.json.write_text(text + "\n")
    summary = {k: report[k] for k in ("inputs", "inputs_by_target", "crashes", "hangs", "memory_cap_hits",
                                      "disagreements", "known_divergences", "unexplained")}
    print(json.dumps(summary, indent=1))
    for key, ex in report["examples"].items():
        if not key.startswith("known:"):
            print(f"-- {key}: {ex[0]['target']}: {ex[0]['detail']}\n   input: {ex[0]['input'][:300]!r}")
    return 1 if report["unexplained"] else 0


if __name__ == "__main__":
    sys.exit(main())
