"""Per-code field extraction: the numbers and names inside an XLA error message.

The catalogue says *which* error a message is; this module reads *what it
says*: sizes for the memory errors, the start instruction for E1200, the
scenario of a core halt.  Each extractor gets the message text (possibly
spanning several log lines) and returns ``(fields, analysis)``; both are plain
JSON-ready dicts so the scanner, the text report and ``--json`` share them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

# XLA/TPU print sizes with tsl's HumanReadableNumBytes-style binary units
# ("8.00M", "29.49G", "0B"); "GiB"/"GB"/"bytes" spellings appear in other tools'
# messages.  All are read as powers of 1024: XLA never prints decimal units.
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "k": 1 << 10, "ki": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
          "m": 1 << 20, "mi": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gi": 1 << 30,
          "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "ti": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
          "p": 1 << 50, "pb": 1 << 50, "pib": 1 << 50}
SIZE = r"\d+(?:\.\d+)?\s?(?:[KMGTP]i?B?|B|bytes?)?"
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


def parse_byte_size(text: str) -> int:
    """``'16.00G'`` -> 17179869184; ``'1.5GiB'``, ``'123456 bytes'``, ``'0B'``, ``'147.64M'`` likewise.

    Raises ValueError for anything else, so callers notice a format change.
    """
    m = _SIZE_RE.match(text)
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"not a byte size: {text!r}")
    return round(float(m.group(1)) * _UNITS[m.group(2).lower()])


def _size_or_none(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return parse_byte_size(text)
    except ValueError:
        return None


class _Lazy:
    """A pattern compiled when a message of its code is first read: importing this module compiled
    all 23 (~4.7 ms of a log's scan, issue 36 item 6), for the one or two codes a log shows."""

    __slots__ = ("_source", "_ws", "_rx")

    def __init__(self, source: str, ws: bool = False):
        self._source, self._ws = source, ws
        self._rx: re.Pattern[str] | None = None

    @property
    def rx(self) -> re.Pattern[str]:
        if self._rx is None:
            source = re.sub(r"(?<!\\) ", r"\\s+", self._source) if self._ws else self._source
            self._rx = re.compile(source)
        return self._rx

    def search(self, text: str) -> re.Match[str] | None:
        return self.rx.search(text)

    def findall(self, text: str) -> list[Any]:
        return self.rx.findall(text)


def _ws(pattern: str) -> _Lazy:
    """Compiled when first used, with every literal space matching any whitespace run (messages wrap)."""
    return _Lazy(pattern, ws=True)


Extractor = Callable[[str], "tuple[dict[str, Any], dict[str, Any]]"]
EXTRACTORS: dict[str, Extractor] = {}


def extractor(code: str):
    def register(fn: Extractor) -> Extractor:
        EXTRACTORS[code] = fn
        return fn
    return register


def extract(code: str, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fields and analysis for ``code`` from its message text; empty dicts for codes with no extractor."""
    fn = EXTRACTORS.get(code)
    return fn(text) if fn else ({}, {})


# --- E1200 ----------------------------------------------------------------------------------

_E1200 = _ws(r'Tensor which is moved to host \((?:starting from (?P<start>"[^"]*"|[^\s)]+)'
             r'|custom call "(?P<custom_call>[^"]*)")\)')


@extractor("E1200")
def e1200(text: str):
    m = _E1200.search(text)
    if not m:
        return {}, {}
    if m.group("custom_call") is not None:
        return {"start": m.group("custom_call"), "start_kind": "custom_call"}, {}
    return {"start": m.group("start").strip('"'), "start_kind": "walk_start"}, {}


# --- E0102 ----------------------------------------------------------------------------------

@extractor("E0102")
def e0102(text: str):
    from ..inputs.messages import analyze_e0102, parse_e0102

    fields = parse_e0102(text)
    if fields is None:
        return {}, {}
    fields.pop("_span", None)
    return fields, analyze_e0102(fields)


def message_end(code: str, text: str) -> int | None:
    """Where the message at the start of ``text`` ends, for the codes whose parser knows it (E0102's
    wrapped line, E01xx's list of arguments); None otherwise (the scanner's own rule applies)."""
    if code == "E0102":
        parsed = e0102_fields(text)
        return None if parsed is None else parsed["_span"][1]
    if code == "E01xx":
        from ..inputs.jax_messages import message_end as jax_message_end

        return jax_message_end(text)
    return None


SPAN_CODES = ("E0102", "E01xx")
"""Codes whose message extent :func:`message_end` gives."""


# --- E01xx: JAX's own layout and memory-kind checks ------------------------------------------

@extractor("E01xx")
def e01xx(text: str):
    from ..inputs.jax_explanation import analyze
    from ..inputs.jax_messages import parse

    fields = parse(text, first_line=True)
    if fields is None:
        return {}, {}
    fields.pop("_span", None)
    return fields, analyze(fields)


# --- E0100 / E0101 ----------------------------------------------------------------------------

_E0100 = _ws(rf"Attempting to allocate (?P<requested>{SIZE})\. That was not possible\."
             rf"(?: There are (?P<free>{SIZE}) free\.?)?(?:;? ?\((?P<memory>[^)]*)\))?")
_E0101_PROGRAM = _ws(r"Error loading program '(?P<program>[^']*)'")
_E0101 = _ws(rf"Attempting to reserve (?P<reserve>{SIZE}) at the bottom of memory\. That was not possible\."
             rf"(?: There are (?P<free>{SIZE}) free, (?P<reserved>{SIZE}) reserved, and "
             rf"(?P<reservable>{SIZE}) reservable\.)?")
_REPLICA = _ws(r"while running replica (?P<replica>\d+) and partition (?P<partition>\d+)")


def _replica(text: str, fields: dict[str, Any]) -> None:
    m = _REPLICA.search(text)
    if m:
        fields["replica"] = int(m.group("replica"))
        fields["partition"] = int(m.group("partition"))


@extractor("E0100")
def e0100(text: str):
    m = _E0100.search(text)
    if not m:
        return {}, {}
    req, free = _size_or_none(m.group("requested")), _size_or_none(m.group("free"))
    fields = {"requested_bytes": req, "free_bytes": free, "memory": m.group("memory")}
    analysis: dict[str, Any] = {}
    if req is not None and free is not None:
        analysis["shortfall_bytes"] = max(0, req - free)
        analysis["likely_cause"] = "out_of_memory" if req > free else "fragmentation"
    return fields, analysis


@extractor("E0101")
def e0101(text: str):
    m = _E0101.search(text)
    if not m:
        return {}, {}
    fields: dict[str, Any] = {
        "reserve_bytes": _size_or_none(m.group("reserve")), "free_bytes": _size_or_none(m.group("free")),
        "reserved_bytes": _size_or_none(m.group("reserved")),
        "reservable_bytes": _size_or_none(m.group("reservable"))}
    p = _E0101_PROGRAM.search(text)
    fields["program"] = p.group("program") if p else None
    _replica(text, fields)
    analysis: dict[str, Any] = {}
    if fields["reserve_bytes"] is not None and fields["free_bytes"] is not None:
        analysis["shortfall_bytes"] = max(0, fields["reserve_bytes"] - fields["free_bytes"])
        analysis["likely_cause"] = ("out_of_memory" if fields["reserve_bytes"] > fields["free_bytes"]
                                    else "fragmentation")
    return fields, analysis


# --- E1000 / E1001 ----------------------------------------------------------------------------

_E1000_USED = _ws(rf"Used (?P<used>{SIZE}) of (?P<limit>{SIZE}) (?P<space>\w+)\.")
_E1000_EXCEEDED = _ws(rf"Exceeded \w+ capacity by (?P<excess>{SIZE})")
_E1000_SPLIT = _ws(rf"TensorCore Hbm usage:? (?P<tc>{SIZE}),? SparseCore Hbm usage:? (?P<sc>{SIZE}),? "
                   rf"exceeding available bytes:? (?P<limit>{SIZE})")
_E1001_STACK = _ws(r"Ran out of memory in memory space vmem while allocating on stack for (?P<instruction>%[\w.\-]+)")
_E1001_ALLOC = _ws(r"Allocation \(size=(?P<used>\d+)\) would exceed memory \(size=(?P<limit>\d+)\)")
_TAG = _Lazy(r"tag = '(?P<tag>[^']*)'")


@extractor("E1000")
def e1000(text: str):
    fields: dict[str, Any] = {}
    m = _E1000_SPLIT.search(text)
    if m:
        tc, sc = parse_byte_size(m.group("tc")), parse_byte_size(m.group("sc"))
        fields.update(tensorcore_bytes=tc, sparsecore_bytes=sc, used_bytes=tc + sc,
                      limit_bytes=parse_byte_size(m.group("limit")), memory_space="hbm")
    m = _E1000_USED.search(text)
    if m:
        fields.update(used_bytes=parse_byte_size(m.group("used")), limit_bytes=parse_byte_size(m.group("limit")),
                      memory_space=m.group("space").lower())
    m = _E1000_EXCEEDED.search(text)
    if m:
        fields["excess_bytes"] = parse_byte_size(m.group("excess"))
    elif "used_bytes" in fields and "limit_bytes" in fields:
        fields["excess_bytes"] = fields["used_bytes"] - fields["limit_bytes"]
    analysis: dict[str, Any] = {}
    if fields.get("used_bytes") and fields.get("limit_bytes"):
        analysis["used_over_limit"] = round(fields["used_bytes"] / fields["limit_bytes"], 3)
        if "sparsecore_bytes" in fields:
            analysis["scenario"] = "balance_tensorcore_and_sparsecore"
            sc_larger = fields["sparsecore_bytes"] > fields["tensorcore_bytes"]
            analysis["larger_user"] = "sparsecore" if sc_larger else "tensorcore"
            _e1000_split_story(fields, analysis, sc_larger)
    return fields, analysis


def _e1000_split_story(fields: dict[str, Any], analysis: dict[str, Any], sc_larger: bool) -> None:
    """The TensorCore + SparseCore message (drafted upstream as E1002): say which side to shrink
    first, and lead the fixes with that side's (the SparseCore flags only help when it is SparseCore)."""
    from ..base.labels import text
    from ..base.units import human_bytes

    sc, tc, over = (human_bytes(fields["sparsecore_bytes"]), human_bytes(fields["tensorcore_bytes"]),
                    human_bytes(fields["used_bytes"] - fields["limit_bytes"]))
    if sc_larger:
        analysis["notes"] = [text("e1000.note_sparsecore_larger", sc=sc, tc=tc, over=over)]
        analysis["fixes_first"] = [text("e1000.fix_sparsecore_first")]
    else:
        analysis["notes"] = [text("e1000.note_tensorcore_larger", sc=sc, tc=tc, over=over)]


@extractor("E1001")
def e1001(text: str):
    fields: dict[str, Any] = {}
    m = _E1001_STACK.search(text)
    if m:
        fields["instruction"] = m.group("instruction")
        fields["custom_kernel"] = "custom-call" in text or "tpu_custom_call" in text
    m = _E1001_ALLOC.search(text)
    if m:
        used, limit = int(m.group("used")), int(m.group("limit"))
        fields.update(used_bytes=used, limit_bytes=limit, excess_bytes=used - limit)
        t = _TAG.search(text)
        if t:
            fields["tag"] = t.group("tag")
            fields["custom_kernel"] = "kernel" in t.group("tag")
    return fields, {}


# --- E0200 ------------------------------------------------------------------------------------

_OBSERVED = _Lazy(r"observed errors are:\s*\[(?P<kinds>[^\]]*)\]")
_ASSERT_WORDS = _Lazy(r"\b(BoundsCheck|scheckne|scheckeq|schecklt|scheckge|scheckbetween)\b")
_PC = _ws(r"halted unexpectedly at tag:pc (?P<pc>\S+?)(?: \(from (?P<from_pc>[^)]+)\))?:?(?:\s|$)")


@extractor("E0200")
def e0200(text: str):
    fields: dict[str, Any] = {}
    m = _PC.search(text)
    if m:
        fields["pc"] = m.group("pc")
        fields["from_pc"] = m.group("from_pc")
    observed = _OBSERVED.search(text)
    words = _ASSERT_WORDS.search(text)
    if observed:
        kinds = [k.strip() for k in observed.group("kinds").split(",") if k.strip()]
        fields["observed_errors"] = kinds
        if any(k in ("Hardware", "Network", "Power") for k in kinds):
            scenario, sub = "infrastructure_failure", None
        else:
            scenario, sub = "hardware_constraint_violation", None
    elif words or "Semaphore" in text:
        scenario = "compiler_assertion"
        fields["assertion"] = words.group(1) if words else None
        if re.search(r"launch\s+group", text):
            sub = "launch_group_mismatch"
        elif "BoundsCheck" in text:
            sub = "bounds_check_failure"
        elif re.search(r"Semaphore.*nonzero\s+value\s+upon\s+exit", text, re.S):
            sub = "mosaic_synchronization"
        else:
            sub = "other_assertion"
    elif re.search(r"Semaphore.*nonzero\s+value\s+upon\s+exit", text, re.S):
        scenario, sub = "compiler_assertion", "mosaic_synchronization"
    else:
        scenario, sub = "uncategorized", None
    return fields, {"scenario": scenario, "sub_type": sub}


# --- SparseCore -------------------------------------------------------------------------------

_SC_SPACES = {0: "Smem", 201: "TileSpmem", 202: "Spmem", 203: "HBM", 204: "Sync Flags"}
_E3000 = _ws(r"current allocation offset upper bound \((?P<upper>\d+) words\) exceeds the legitimate user "
             r"allocatable offset upper bound \((?P<limit>\d+) words\) in memory space (?P<space>\d+)"
             r"(?: when allocating (?P<alloc>\d+) words)?")


@extractor("E3000")
def e3000(text: str):
    m = _E3000.search(text)
    if not m:
        return {}, {}
    space = int(m.group("space"))
    upper, limit = int(m.group("upper")), int(m.group("limit"))
    fields = {"offset_upper_bound_words": upper, "limit_words": limit,
              "memory_space": space, "memory_space_name": _SC_SPACES.get(space),
              "allocation_words": int(m.group("alloc")) if m.group("alloc") else None}
    scenario = "hbm_allocation" if space == 203 else "internal_memory"
    return fields, {"scenario": scenario, "excess_words": upper - limit}


_KV = _Lazy(r"\b(max_nz_per_row|max_unique_nz_per_row|feature_width|sample_count|fixed_size_allocation_bytes|"
                 r"row_dependent_size_allocation_bytes|total_spmem_size_bytes)\s*=\s*(\d+)")


@extractor("E3001")
def e3001(text: str):
    fields = {k: int(v) for k, v in _KV.findall(text)}
    analysis: dict[str, Any] = {}
    if {"fixed_size_allocation_bytes", "row_dependent_size_allocation_bytes", "total_spmem_size_bytes"} <= set(fields):
        need = fields["fixed_size_allocation_bytes"] + fields["row_dependent_size_allocation_bytes"]
        analysis = {"needed_bytes": need, "excess_bytes": need - fields["total_spmem_size_bytes"]}
    return fields, analysis


# --- Mosaic -----------------------------------------------------------------------------------

_E2001 = _Lazy(r"Unsupported matmul RHS type on target: '(?P<type>[^']*)'")
_E2002 = _ws(r"for input (?P<input>\d+): Operand of shape (?P<shape>\([^)]*\)) has tiling (?P<tiling>\([^)]*\)), "
             r"but its block shape (?P<block>\([^)]*\))")
_E2003 = _ws(r"index in dimension (?P<dim>\d+) is a multiple of (?P<multiple>\d+)")
_LOCATION = _Lazy(r"at location: (?P<loc>\S.*)")


@extractor("E2001")
def e2001(text: str):
    m = _E2001.search(text)
    return ({"rhs_type": m.group("type")} if m else {}), {}


@extractor("E2002")
def e2002(text: str):
    m = _E2002.search(text)
    if not m:
        return {}, {}
    return {"input": int(m.group("input")), "operand_shape": " ".join(m.group("shape").split()),
            "tiling": " ".join(m.group("tiling").split()), "block_shape": " ".join(m.group("block").split())}, {}


@extractor("E2003")
def e2003(text: str):
    m = _E2003.search(text)
    return ({"dimension": int(m.group("dim")), "multiple": int(m.group("multiple"))} if m else {}), {}


_MOSAIC_REASON = _ws(r"Mosaic failed to compile TPU kernel: (?P<reason>[^\n]*)")


@extractor("E2xxx")
def e2xxx(text: str):
    m = _MOSAIC_REASON.search(text)
    fields: dict[str, Any] = {"reason": m.group("reason").strip()} if m else {}
    loc = _LOCATION.search(text)
    if loc:
        fields["location"] = loc.group("loc").strip()
    return fields, {}


def e0102_fields(text: str) -> dict[str, Any] | None:
    from ..inputs.messages import parse_e0102

    try:
        return parse_e0102(text)
    except ValueError:  # a number past int()'s 4,300 digits: no message XLA prints
        return None


def fields_or_none(code: str, window: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The message's fields and analysis; one message they cannot be read from (a number of 5,000
    digits, a bug in one code's analysis) keeps its finding, without them, and the scan goes on."""
    try:
        return extract(code, window)
    except Exception:
        return {}, {}
