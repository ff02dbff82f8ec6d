"""Our HLO reader agrees with real XLA (jaxlib) on HLO that real jax programs produce.

The corpus (``jax_programs.py``) holds, per program: the text before
optimisation (``lowered.as_text("hlo")``), after CPU optimisation
(``compiled.as_text()``) and every HLO file ``--xla_dump_to`` wrote.  For each
text we compare our parse with jaxlib's: the computations (names, order, which
is the entry), per computation the instructions in order, and per instruction
its opcode, operand names and printed shape with layout, plus the entry
computation layout.  Dump files that are not HLO must be refused with an
InputError, as jaxlib refuses them.  Finally, our printed module must read back
in jaxlib exactly as the original text does.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from jax_programs import PROGRAMS
from jaxlib_oracle import (
    OracleComputation,
    OracleInstruction,
    OracleModule,
    hlo_module_from_text,
    oracle_module,
)
from xladoctor.base.errors import InputError
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

MAX_DIFFS = 25


def _opcode_text(opcode) -> str:
    return str(getattr(opcode, "value", opcode))


def normalize_ours(module) -> OracleModule:
    """Our HloModule in the oracle's normalised form."""
    comps = tuple(
        OracleComputation(
            c.name,
            bool(c.is_entry),
            tuple(
                OracleInstruction(
                    i.name,
                    _opcode_text(i.opcode),
                    tuple(o.name for o in i.operands),
                    str(i.shape),
                )
                for i in c.instructions
            ),
        )
        for c in module.computations
    )
    layout = module.entry_computation_layout
    return OracleModule(module.name, comps, "" if layout is None else str(layout))


def diff_modules(ours: OracleModule, xla: OracleModule) -> list[str]:
    """Human-readable differences, ours vs jaxlib's, most structural first."""
    out: list[str] = []
    if ours.name != xla.name:
        out.append(f"module name: ours {ours.name!r}, jaxlib {xla.name!r}")
    if ours.entry_computation_layout != xla.entry_computation_layout:
        out.append(
            "entry_computation_layout:\n"
            f"    ours   {ours.entry_computation_layout}\n    jaxlib {xla.entry_computation_layout}"
        )
    our_names = [c.name for c in ours.computations]
    xla_names = [c.name for c in xla.computations]
    if our_names != xla_names:
        out.append(f"computations: ours {our_names}, jaxlib {xla_names}")
    xla_by_name = {c.name: c for c in xla.computations}
    for oc in ours.computations:
        xc = xla_by_name.get(oc.name)
        if xc is None:
            continue
        if oc.is_entry != xc.is_entry:
            out.append(f"{oc.name}: is_entry ours {oc.is_entry}, jaxlib {xc.is_entry}")
        oi_names = [i.name for i in oc.instructions]
        xi_names = [i.name for i in xc.instructions]
        if oi_names != xi_names:
            out.append(f"{oc.name}: instruction order differs:\n    ours   {oi_names}\n    jaxlib {xi_names}")
        xi_by_name = {i.name: i for i in xc.instructions}
        for oi in oc.instructions:
            xi = xi_by_name.get(oi.name)
            if xi is None:
                continue
            for field in ("opcode", "operands", "shape"):
                a, b = getattr(oi, field), getattr(xi, field)
                if a != b:
                    out.append(f"{oc.name}/{oi.name} {field}:\n    ours   {a}\n    jaxlib {b}")
    return out


def assert_same_as_jaxlib(text: str, label: str) -> None:
    xla = oracle_module(text)
    ours = normalize_ours(parse_module(text))
    diffs = diff_modules(ours, xla)
    if diffs:
        shown = "\n".join(diffs[:MAX_DIFFS])
        more = f"\n... and {len(diffs) - MAX_DIFFS} more" if len(diffs) > MAX_DIFFS else ""
        pytest.fail(f"{label}: {len(diffs)} difference(s) from jaxlib\n{shown}{more}", pytrace=False)


# --------------------------------------------------------------- the corpus itself


def test_corpus_holds_what_the_checks_need(jax_hlo_corpus):
    """Guards the corpus: host offload must really appear where we rely on it."""
    c = jax_hlo_corpus
    assert set(c.manifest["programs"]) == set(PROGRAMS)
    assert "pinned_host" in c.manifest["observations"]["addressable_memories"]
    for name in ("device_put_pinned_host_tpu", "scan_remat_offload_tpu"):
        pre = c.text(name, "pre")
        assert 'custom_call_target="annotate_device_placement"' in pre
        assert '_xla_buffer_placement="pinned_host"' in pre
    # CPU keeps the host memory kind of outputs: S(5) in the compiled entry layout.
    post_header = c.text("host_out_shardings", "post").split("\n", 1)[0]
    assert "{1,0:S(5)}" in post_header
    assert "S(5)" in oracle_module(c.text("host_out_shardings", "post")).entry_computation_layout
    for name, prog in PROGRAMS.items():
        if "dump" in prog.forms:
            kinds = {p.name.rsplit(".", 2)[-2] for p in c.hlo_dump_files(name)}
            assert kinds == {"before_optimizations", "cpu_after_optimizations"}, (name, kinds)


def test_dump_files_are_classified_as_jaxlib_reads_them(jax_hlo_corpus):
    non_hlo = jax_hlo_corpus.non_hlo_dump_files()
    assert {p.name.rsplit("-", 1)[-1] for p in non_hlo} >= {"assignment.txt", "report.txt", "range.txt"}
    for p in jax_hlo_corpus.hlo_dump_files():
        hlo_module_from_text(p.read_text())
    for p in non_hlo:
        with pytest.raises(RuntimeError):
            hlo_module_from_text(p.read_text())


# ------------------------------------------------------------------ ours vs jaxlib

PRE_POST = [(name, form) for name, prog in PROGRAMS.items() for form in prog.forms if form != "dump"]
DUMPED = [name for name, prog in PROGRAMS.items() if "dump" in prog.forms]


@pytest.mark.parametrize(("program", "form"), PRE_POST, ids=[f"{p}-{f}" for p, f in PRE_POST])
def test_parse_matches_jaxlib(program, form, jax_hlo_corpus):
    assert_same_as_jaxlib(jax_hlo_corpus.text(program, form), f"{program} ({form})")


@pytest.mark.parametrize("program", DUMPED)
def test_dump_files_match_jaxlib(program, jax_hlo_corpus):
    files = jax_hlo_corpus.hlo_dump_files(program)
    assert files
    for p in files:
        assert_same_as_jaxlib(p.read_text(), p.name)


def test_helper_module_dumps_match_jaxlib(jax_hlo_corpus):
    """The small modules jax compiles on the side (iota, broadcast_in_dim, ...)."""
    ours = {p for name in DUMPED for p in jax_hlo_corpus.hlo_dump_files(name)}
    helpers = [p for p in jax_hlo_corpus.hlo_dump_files() if p not in ours]
    assert helpers
    for p in helpers:
        assert_same_as_jaxlib(p.read_text(), p.name)


def test_non_hlo_dump_files_are_input_errors(jax_hlo_corpus):
    """Buffer assignment, live ranges, memory reports: refused with a located error."""
    seen_kinds = set()
    for p in jax_hlo_corpus.non_hlo_dump_files():
        kind = p.name.split("after_optimizations-", 1)[-1]
        if kind in seen_kinds:
            continue
        seen_kinds.add(kind)
        with pytest.raises(InputError) as info:
            parse_module(p.read_text())
        assert info.value.line >= 1 and info.value.col >= 1
    assert len(seen_kinds) >= 4


# ------------------------------------------------------------ printing round trip


def assert_reprint_reads_the_same(text: str, label: str) -> None:
    """jaxlib reads our printed module exactly as it reads the original text.

    Compared through jaxlib's own ``to_string()`` of both, so every attribute
    counts, not only the structure compared above.
    """
    printed = print_module(parse_module(text))
    try:
        again = hlo_module_from_text(printed).to_string()
    except RuntimeError as e:
        pytest.fail(f"{label}: jaxlib rejects our printed module: {e}", pytrace=False)
    original = hlo_module_from_text(text).to_string()
    if again != original:
        diff = [
            f"line {n}:\n    ours   {a}\n    jaxlib {b}"
            for n, (a, b) in enumerate(zip(again.splitlines(), original.splitlines()), 1)
            if a != b
        ]
        pytest.fail(f"{label}: reprint differs once read by jaxlib\n" + "\n".join(diff[:10]), pytrace=False)


@pytest.mark.parametrize(("program", "form"), PRE_POST, ids=[f"{p}-{f}" for p, f in PRE_POST])
def test_printed_module_reads_the_same_in_jaxlib(program, form, jax_hlo_corpus):
    text = jax_hlo_corpus.text(program, form)
    assert_reprint_reads_the_same(text, f"{program} ({form})")


def test_printed_dump_modules_read_the_same_in_jaxlib(jax_hlo_corpus):
    failures = []
    for p in jax_hlo_corpus.hlo_dump_files():
        try:
            assert_reprint_reads_the_same(p.read_text(), p.name)
        except pytest.fail.Exception as e:
            failures.append(str(e).split("\n", 1)[0])
        except InputError as e:
            failures.append(f"{p.name}: {e}")
    assert not failures, f"{len(failures)} dump file(s):\n" + "\n".join(failures[:20])
