"""XLA's NameUniquer (xla/service/name_uniquer.cc) as the parser and the passes run it, and its fast form."""

from __future__ import annotations

import random
import re

import pytest

from xladoctor.base.sized_sets import CHUNK
from xladoctor.ir.instruction_names import InstructionNames
from xladoctor.ir.name_uniquer import NameUniquer

# (names in order, what GetUniqueName returns for each), worked through name_uniquer.cc by hand.
CASES = [
    (["p", "p", "p"], ["p", "p.1", "p.2"]),
    (["a", "a.0"], ["a", "a.1"]),
    (["a.0", "a"], ["a.0", "a.1"]),
    (["r.012"], ["r.12"]),
    (["r.1", "r.01"], ["r.1", "r.0"]),
    (["x.-1", "x.-1"], ["x.-1", "x.0"]),
    (["__foo", "__xla_bar"], ["a_foo", "__xla_bar"]),
    (["f32", "tuple"], ["f32_", "tuple"]),
    (["n.99999999999999999999"], ["n.99999999999999999999"]),
    # a 19-digit suffix that fits an int64 is split off (SimpleAtoi), one past INT64_MAX is not
    (["a.1000000000000000000", "a.1000000000000000000"], ["a.1000000000000000000", "a.0"]),
    (["a.9223372036854775807", "a.9223372036854775807"], ["a.9223372036854775807", "a.0"]),
    (["a.9223372036854775808", "a.9223372036854775808"], ["a.9223372036854775808", "a.9223372036854775808.1"]),
    (["a.0000000000000000001", "a.1"], ["a.1", "a.0"]),  # leading zeros past 18 digits still parse
    (["a.1.0", "a.1", "a.1.0"], ["a.1.0", "a.1", "a.1.1"]),  # (a.1, 0) and (a, 1) are two pairs
]


def _xla_get_unique_name(generated: dict[str, tuple[set[int], list[int]]], prefix: str) -> str:
    """name_uniquer.cc's GetUniqueName with separator '.', transcribed line by line for names
    XLA's lexer reads (sanitising changes only ``__x`` and type names, which the random runs
    below leave out): the reference the port is held to."""
    root, has_suffix, suffix = prefix, False, 0
    dot = root.rfind(".")
    if 0 < dot < len(root) - 1:
        after = root[dot + 1:]
        digits = after[1:] if after[:1] in ("+", "-") else after
        if digits.isascii() and digits.isdigit() and -2**63 <= int(after) <= 2**63 - 1:  # SimpleAtoi
            has_suffix, suffix, root = True, int(after), root[:dot]
    used, next_ = generated.setdefault(root, (set(), [0]))
    if suffix in used:  # SequentialIdGenerator::RegisterId
        while next_[0] in used:
            next_[0] += 1
        suffix = next_[0]
        next_[0] += 1
    used.add(suffix)
    if suffix == 0:
        return f"{root}.0" if has_suffix else root
    return f"{root}.{suffix}"


def test_unique_is_xla_get_unique_name_on_random_runs():
    """The port's and InstructionNames' ``unique`` against the transcription above, on names
    whose suffixes sit around the int64 limit and whose roots have suffixes of their own."""
    rng = random.Random(44)
    roots = ["a", "a.1", "a.0", "b.2.3", "c", "a.1000000000000000000"]
    suffixes = ["0", "1", "2", "01", "-1", "-0", "1000000000000000000", "0000000000000000001",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                "-9223372036854775809", "99999999999999999999", "1.0", "x"]
    for _ in range(3000):
        xla: dict[str, tuple[set[int], list[int]]] = {}
        port, names = NameUniquer(), InstructionNames()
        for _ in range(rng.randint(1, 25)):
            n = rng.choice(roots) + ("." + rng.choice(suffixes) if rng.random() < 0.7 else "")
            want = _xla_get_unique_name(xla, n)
            assert port.unique(n) == want and names.unique(n) == want, n


@pytest.mark.parametrize("names,expected", CASES)
def test_get_unique_name(names, expected):
    for uniquer in (NameUniquer(), InstructionNames()):
        assert [uniquer.unique(n) for n in names] == expected


def test_fast_forms_give_what_the_plain_port_gives():
    """The split fast path and the set-backed InstructionNames against the plain port, on random
    runs of names XLA's lexer can produce."""
    rng = random.Random(7)
    parts = ["a", "p", "f32", "__x", "__xla_y", "b.c", "x-y", "r", "a.", "s32.1", "_", "tuple", "q.1"]
    suffixes = ["0", "1", "01", "2", "-1", "012", "00", "99999999999999999999", "x", "", "-0"]
    for _ in range(2000):
        plain, fast, lazy = NameUniquer(), NameUniquer(), InstructionNames()
        for _ in range(rng.randint(1, 30)):
            n = rng.choice(parts) + ("." + rng.choice(suffixes) if rng.random() < 0.5 else "")
            want = plain._unique_sanitized(n)
            assert fast.unique(n) == want and lazy.unique(n) == want, n


# (names taken, then what each form gives for one more name on a base).
REWRITE_CASES = [
    (["neg.19"], "unique_keeping_suffix", "neg.19", "neg.19.1"),
    (["neg.19", "neg.19.1"], "unique_keeping_suffix", "neg.19", "neg.19.2"),
    (["neg.19"], "unique_keeping_suffix", "neg", "neg"),
    (["constant", "constant.1", "constant.3"], "unique_keeping_suffix", "constant", "constant.2"),
    (["neg.19"], "unique", "neg.19", "neg.0"),  # what XLA's GetUniqueName says
    ([], "numbered", "copy", "copy.1"),
    (["copy.1", "copy.2"], "numbered", "copy.7", "copy.3"),
    (["copy"], "numbered", "copy", "copy.1"),
]


@pytest.mark.parametrize("taken,form,base,expected", REWRITE_CASES)
def test_names_for_rewrites(taken, form, base, expected):
    for uniquer in (NameUniquer(), InstructionNames()):
        for name in taken:
            uniquer.claim(name)
        assert getattr(uniquer, form)(base) == expected, type(uniquer).__name__


def test_claim_is_idempotent_and_release_gives_a_name_back():
    for uniquer in (NameUniquer(), InstructionNames()):
        uniquer.claim("x")
        uniquer.claim("x")
        assert uniquer.unique("x") == "x.1"
        uniquer.release("x")
        assert not uniquer.taken("x")
        assert uniquer.unique("x") == "x" and uniquer.unique_keeping_suffix("x.1") == "x.1.1"
        assert uniquer.taken("x") and uniquer.taken("x.1.1")


def test_the_fast_form_answers_every_call_as_the_plain_one():
    """InstructionNames against NameUniquer on random runs of every call the module makes."""
    rng = random.Random(11)
    names = ["a", "a.1", "a.0", "p.3", "f32", "__x", "copy", "copy.2", "r.012", "n.-1", "a.1.0",
             "a.1000000000000000000", "a.9223372036854775808"]
    for _ in range(3000):
        plain, lazy = NameUniquer(), InstructionNames()
        for _ in range(rng.randint(1, 20)):
            form = rng.choice(["unique", "unique_keeping_suffix", "numbered", "claim", "release", "taken"])
            name = rng.choice(names)
            assert getattr(plain, form)(name) == getattr(lazy, form)(name), (form, name)


DUPLICATE_MOVE = """HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

other {
  move = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(move)
}

ENTRY main {
  p = f32[4]{0} parameter(0)
  move = f32[4]{0} custom-call(p), custom_call_target="MoveToHost"
  ROOT c = f32[4]{0} call(move), to_apply=other
}
"""


def test_the_offload_report_names_instructions_as_xla_renamed_them():
    """'move' is defined in 'other' first, so XLA's parser renames the entry's MoveToHost 'move.1';
    the E1200 finding names it so, as jaxlib's module does (and the compiler's messages after it)."""
    from xladoctor.offload import analyze_host_offload
    from xladoctor.syntax.hlo_parser import parse_module
    (error,) = analyze_host_offload(parse_module(DUPLICATE_MOVE)).errors
    assert error.origin_instruction == "move.1" and [h.instruction for h in error.path] == ["move.1", "n"]
    pytest.importorskip("jaxlib")
    from jaxlib_oracle import oracle_module
    entry = next(c for c in oracle_module(DUPLICATE_MOVE).computations if c.is_entry)
    assert [i.name for i in entry.instructions] == ["p", "move.1", "c"]


def test_lint_finds_a_name_the_module_uniquer_never_gave_out():
    """Every live name must come from the module's uniquer (or a later name may take it)."""
    from xladoctor.ir.instruction import HloInstruction
    from xladoctor.ir.lint import LintError
    from xladoctor.ir.opcodes import HloOpcode
    from xladoctor.syntax.hlo_parser import parse_module
    work = parse_module(DUPLICATE_MOVE).clone()
    work.lint()
    entry = work.entry_computation()
    p = entry.parameters[0]
    named = HloInstruction(work.unique_name("move"), HloOpcode.COPY, p.shape)
    assert named.name == "move.2"  # 'move' and 'move.1' are the parsed ones
    stray = HloInstruction("stray", HloOpcode.COPY, p.shape)
    for instr in (named, stray):
        entry.insert_before(entry.root_instruction(), instr)
        instr.operands = [p]
    with pytest.raises(LintError, match="never gave out 'stray'") as err:
        work.lint()
    assert "move.2" not in str(err.value)


def _Named(name: str):
    """An instruction named ``name`` (the name table and the uniquer read only its name)."""
    from xladoctor.ir.instruction import HloInstruction
    from xladoctor.ir.opcodes import HloOpcode
    from xladoctor.syntax.shape_parser import parse_shape

    return HloInstruction(name, HloOpcode.PARAMETER, parse_shape("f32[]"))


def test_a_module_uniquer_that_reads_its_name_table_answers_as_the_plain_port():
    """A module's InstructionNames keeps no entry for a live name that is its own key (the name
    table is its map for those): against NameUniquer on random runs of joining computations
    (renamed or claimed), names for rewrites, removals with and without release."""
    _random_module_runs(random.Random(13), ["join", "claim_join", "unique", "unique_keeping_suffix", "numbered",
                                            "remove", "remove_release", "taken"])


def test_names_taken_line_by_line_answer_as_a_join():
    """The parser's shared scope (syntax/computation_reader.py) gives a computation's names out
    one by one as it reads them (``take_live``) and, at the first one that cannot be given out
    so, undoes them (``untake_live``) and joins the computation as before: the same names and
    the same uniquer afterwards as a join, against the plain port on random runs."""
    _random_module_runs(random.Random(45), ["take_join", "take_join", "join", "claim_join", "unique",
                                            "numbered", "remove", "remove_release", "taken"])


def _take_join(names: InstructionNames, batch: list) -> bool:
    """The parser's shared scope on one computation's instructions: whether every name was taken."""
    for k, instr in enumerate(batch):
        if not names.take_live(instr):
            names.untake_live(batch[:k])
            names.unique_each_live(batch)
            return False
    return True


def _random_module_runs(rng: random.Random, forms: list[str]) -> None:
    from xladoctor.ir.names import NameTable
    pool = ["a", "a.1", "a.0", "p.3", "f32", "__x", "copy", "copy.2", "r.012", "n.-1", "b", "b.2", "c",
            "a.1.0", "b.2.0", "c.1000000000000000000"]
    taken_whole = 0
    for _ in range(3000):
        table = NameTable()
        names, plain = InstructionNames(table), NameUniquer()
        live = []
        for _ in range(rng.randint(1, 25)):
            form = rng.choice(forms)
            if form in ("join", "take_join"):  # a parsed computation: every name through unique, entered at once
                batch = [_Named(rng.choice(pool)) for _ in range(rng.randint(1, 4))]
                want = [plain.unique(i.name) for i in batch]
                if form == "join":
                    names.unique_each_live(batch)
                else:
                    taken_whole += _take_join(names, batch)
                assert [i.name for i in batch] == want
                assert all(table.get(i.name) is i for i in batch)
                live.extend(batch)
            elif form == "claim_join":  # a copied computation: names no live one has
                batch = []
                for n in [rng.choice(pool) for _ in range(3)]:
                    if n not in table and not plain.taken(n):  # a module's names: one per (root, suffix)
                        plain.claim(n)
                        batch.append(_Named(n))
                names.claim_each_live(batch)
                live.extend(batch)
            elif form in ("remove", "remove_release"):
                if live:
                    gone = live.pop(rng.randrange(len(live)))
                    assert table.remove(gone)
                    if form == "remove_release":
                        names.release(gone.name)
                        plain.release(gone.name)
            elif form == "taken":
                n = rng.choice(pool)
                assert names.taken(n) == plain.taken(n), n
            else:  # a pass's new instruction: named by the uniquer, then added
                n = rng.choice(pool)
                given = getattr(names, form)(n)
                assert given == getattr(plain, form)(n), (form, n)
                instr = _Named(given)
                table.add(instr)
                live.append(instr)
        assert all(names.taken(i.name) == plain.taken(i.name) for i in live), ([i.name for i in live], table._live.keys(), names._seen, names._full)
        assert all(names.taken(n) == plain.taken(n) for n in pool)
    assert "take_join" not in forms or taken_whole > 300  # the runs took many computations whole


def test_the_full_form_over_the_plain_map_answers_as_the_plain_port():
    """Once a name is taken twice, InstructionNames answers from its plain map and the roots
    touched since (no walk over every name so far): against NameUniquer after many plain names
    (a module's, claimed as a clone claims them, or given out as the parser does), then every call
    the passes make, with names whose pair is taken, free, sanitised or split at a long suffix."""
    rng = random.Random(13)
    names = ["a", "a.1", "a.0", "a.2", "a.1.1", "p.3", "p", "copy", "copy.1", "copy.2", "neg.19", "neg.19.1",
             "neg", "x.5", "r.012", "n.-1", "f32", "__x", "b", "b.999999999999999999",
             "b.9999999999999999999", "c.07", "d.0", "a.1.0", "b.999999999999999999.0",
             "b.1000000000000000000", "b.1000000000000000000.0", "b.0000000000000000002"]
    for _ in range(3000):
        plain, lazy = NameUniquer(), InstructionNames()
        first = [rng.choice(names) for _ in range(rng.randint(0, 15))]
        if rng.random() < 0.5:
            for name in first:
                plain.claim(name)
            lazy.claim_each(first)
        else:
            assert [plain.unique(n) for n in first] == lazy.unique_each(first)
        for _ in range(rng.randint(1, 25)):
            form = rng.choice(["unique", "unique_keeping_suffix", "numbered", "claim", "release", "taken"])
            name = rng.choice(names)
            assert getattr(plain, form)(name) == getattr(lazy, form)(name), (first, form, name)


@pytest.mark.parametrize("claimed,left", [(["a.1", "a.1.0"], [False, True]), (["a.1.0", "a.1"], [False, True]),
                                          (["b.0", "b.0.0", "c"], [False, True, True])])
def test_a_root_with_a_suffix_of_its_own_is_not_its_zero_pair(claimed, left):
    """``a.1`` is (a, 1) and ``a.1.0`` is (a.1, 0): two names the plain map once filed under one
    key, so that claiming both kept one (gone after a release, or once the full form took over)."""
    for full_first in (False, True):
        plain, lazy = NameUniquer(), InstructionNames()
        for uniquer in (plain, lazy):
            for name in claimed:
                uniquer.claim(name)
            if full_first:
                uniquer.numbered("x")
        assert all(lazy.taken(n) for n in claimed)
        lazy.release(claimed[0])
        plain.release(claimed[0])
        assert [lazy.taken(n) for n in claimed] == [plain.taken(n) for n in claimed] == left
        assert lazy.unique(claimed[1]) == plain.unique(claimed[1])


@pytest.mark.parametrize("full_first", [False, True])
def test_release_each_is_release_of_each(full_first):
    """``release_each`` (the inliner's give-back of a dropped computation's names) answers as one
    ``release`` per name, plain names, names only the full form takes, and after it took over."""
    names = ["a", "a.1", "b.0", "__c", "f32", "d.-1", "e.012", "g.2", "h"]
    rng = random.Random(7)
    for _ in range(50):
        claimed = rng.sample(names, 6)
        released = rng.sample(names, 4)
        one, bulk = InstructionNames(), InstructionNames()
        for names_ in (one, bulk):
            names_.claim_each(list(claimed))
            if full_first:
                names_.numbered("x")  # the full uniquer takes over
        for name in released:
            one.release(name)
        bulk.release_each(released)
        probes = names + ["a.2", "b", "g", "x"]
        assert [one.taken(n) for n in probes] == [bulk.taken(n) for n in probes]
        assert [one.unique(n) for n in probes] == [bulk.unique(n) for n in probes]


@pytest.mark.parametrize("odd_at", [None, 10, CHUNK - 1, CHUNK, CHUNK + 5])
def test_release_each_past_a_chunk_is_release_of_each(odd_at):
    """``release_each`` of more names than it enters at once (``CHUNK``) from a copy that took a
    module's names at once, a name only the full form takes at ``odd_at`` (the full uniquer takes
    over there, mid-list), answers as one ``release`` per name."""
    from xladoctor.ir.names import NameTable
    names = [f"n{k}" for k in range(2 * CHUNK + 100)]
    source = InstructionNames(NameTable())
    source.unique_each_live([_Named(n) for n in names])
    one, bulk = InstructionNames(NameTable()), InstructionNames(NameTable())
    assert one.claim_all_of(source) and bulk.claim_all_of(source)
    released = names[3:-7]
    if odd_at is not None:
        released.insert(odd_at, "__odd")
    for name in released:
        one.release(name)
    bulk.release_each(released)
    probes = names + ["n", "n0.1", "x"]
    assert [one.taken(n) for n in probes] == [bulk.taken(n) for n in probes]
    assert [one.unique(n) for n in probes[::97]] == [bulk.unique(n) for n in probes[::97]]


def test_a_copy_taking_a_modules_names_at_once_answers_as_one_claiming_each():
    """``claim_all_of`` (the offload analysis' copy: its left-out names stay taken without a claim
    each) against a copy that claims every name of the module one by one, then joins some of them
    live, on random runs of every call the passes make on the copy (releases of based names too)."""
    from xladoctor.ir.names import NameTable
    rng = random.Random(29)
    pool = ["a", "a.1", "a.2", "p.3", "copy", "copy.2", "b", "b.2", "c", "d.7", "e"]
    probes = pool + ["a.0", "f32", "__x", "r.012", "n.-1", "copy.1", "x"]
    forms = ["unique", "unique_keeping_suffix", "numbered", "claim", "release", "release_each", "taken",
             "unique_each", "join", "remove"]
    based_runs = 0
    for _ in range(1500):
        original = NameTable()
        source = InstructionNames(original)
        source.unique_each_live([_Named(n) for n in rng.sample(pool, rng.randint(1, 8))])
        if rng.random() < 0.2:  # a module that gave out a name only the plain map's other paths take
            source.unique_each_live([_Named(rng.choice(["a.0", "f32", "__x", "a"]))])
        names = list(original.table())
        kept = [n for n in names if rng.random() < 0.5]
        copies = []
        for bulk in (False, True):
            table = NameTable()
            copy = InstructionNames(table)
            if not (bulk and copy.claim_all_of(source)):
                copy.claim_each([n for n in names if n not in kept])
            else:
                based_runs += 1
            batch = [_Named(n) for n in kept]
            copy.claim_each_live(batch)
            copies.append((table, copy, batch))
        (t1, one, live1), (t2, lazy, live2) = copies
        for _ in range(rng.randint(1, 20)):
            form, name = rng.choice(forms), rng.choice(probes)
            if form == "release_each":
                some = rng.sample(names, min(2, len(names)))
                one.release_each(some)
                lazy.release_each(some)
            elif form == "unique_each":
                assert one.unique_each([name, name]) == lazy.unique_each([name, name]), name
            elif form == "join":
                b1, b2 = [_Named(name)], [_Named(name)]
                one.unique_each_live(b1)
                lazy.unique_each_live(b2)
                assert b1[0].name == b2[0].name
                t1.add(b1[0])  # entered as the module enters them
                t2.add(b2[0])
                live1.append(b1[0])
                live2.append(b2[0])
            elif form == "remove":
                if live1:
                    k = rng.randrange(len(live1))
                    t1.remove(live1.pop(k))
                    t2.remove(live2.pop(k))
            else:
                assert getattr(one, form)(name) == getattr(lazy, form)(name), (form, name)
        assert [one.taken(n) for n in probes] == [lazy.taken(n) for n in probes]
    assert based_runs > 1000  # most runs took the module's names at once


@pytest.mark.parametrize("text", ["0", "7", "012", "000", "123456789012345678", "999999999999999999",
                                  "1234567890123456789", "9223372036854775807", "9223372036854775808",
                                  "-1", "+5", "", "1a", "١٢", "²", " 1", "1 ", "0x1", "+", "-", "--1", "+-1",
                                  "2_c7", "-9223372036854775808", "-9223372036854775809", "-²", "-1_0"])
def test_simple_atoi_reads_a_plain_suffix_as_the_pattern_does(text):
    """Up to 18 ASCII digits are read without the regex: what the int64 pattern gives, every other
    text (19 digits, a sign, other digits than ASCII's, spaces) through the pattern as before."""
    from xladoctor.ir import name_uniquer

    by_pattern = None
    if re.fullmatch(r"[+-]?[0-9]+", text):  # the int64 pattern XLA's SimpleAtoi stands for (name_uniquer had it)
        value = int(text)
        by_pattern = value if -name_uniquer._INT64_MAX - 1 <= value <= name_uniquer._INT64_MAX else None
    assert name_uniquer._simple_atoi(text) == by_pattern


def test_a_layered_root_has_a_suffix_as_its_base_holds_it():
    """``_LayeredUsed``'s test of a positive suffix, inline, answers as ``_base_has``; added and
    discarded suffixes come first, as before."""
    from xladoctor.ir.name_uniquer import _base_has, _LayeredUsed

    base = {"a": "a", "a.1": "a.1", "a.3": "a.3", "a.1.0": "a.1.0", "b.2": "b.2", "a.5": "a.6"}
    for root in ("a", "b", "a.1", "c"):
        used = _LayeredUsed(root, base)
        for suffix in range(-2, 8):
            assert (suffix in used) is _base_has(base, root, suffix), (root, suffix)
        used.add(4)
        used.discard(3)
        assert 4 in used and 3 not in used
        assert "1" not in used and None not in used


def test_a_layered_roots_zero_kept_once_found_until_given_back():
    """``_LayeredUsed`` keeps a suffix 0 its base holds as added (asked at each new name of a root
    without a suffix): asked again it answers the same; given back, it is free, as without the memo;
    a 0 the base lacks is not kept."""
    from xladoctor.ir.name_uniquer import _LayeredUsed, _SequentialIds

    used = _LayeredUsed("a", {"a": "a"})
    assert 0 in used and used.added == {0}
    assert 0 in used
    used.discard(0)
    assert 0 not in used and used.added == set()
    free = _LayeredUsed("b", {"a": "a"})
    assert 0 not in free and free.added == set()
    ids = _SequentialIds(_LayeredUsed("a", {"a": "a", "a.1": "a.1"}))
    assert ids.register(0) == 2 and ids.register_free() == 3  # register of a taken id is register_free


@pytest.mark.parametrize("compiled", [False, True])
def test_names_taken_line_by_line_with_either_underscore_test(compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """take_live's test of a leading ``__`` is str.startswith in the compiled core and two
    comparisons in pure Python: the same names either way, '__' and its neighbours included."""
    from xladoctor.ir import instruction_names

    monkeypatch.setattr(instruction_names, "_COMPILED", compiled)
    for name in ("__x", "__", "_", "_`", "_^", "_a", "__xla_y", "a__", "`", "^"):
        names, plain = InstructionNames(), NameUniquer()
        batch = [_Named(name), _Named(name)]
        want = [plain.unique(i.name) for i in batch]
        _take_join(names, batch)
        assert [i.name for i in batch] == want, name


_OWN_KEY_CASES = ["a", "add.1", "x.10", "x.0", "x.01", "a.1.0", "a.-1", "__x", "__xla_y", "_x", "a__b", "f32",
                  "f32_", "tuple", "pred", "b.0a", "q-.0", "name.-", "s.20"]


def test_all_own_keys_answers_as_own_key_of_each():
    """The test of a whole copy's names at once (claim_each_live's) is :func:`_own_key` of each: any
    one name that is not its own key makes it false, wherever it stands."""
    from xladoctor.ir.instruction_names import _all_own_keys, _own_key

    rng = random.Random(7)
    for _ in range(300):
        names = rng.sample(_OWN_KEY_CASES, rng.randint(0, 5))
        assert _all_own_keys(names) == all(_own_key(n) for n in names), names


@pytest.mark.parametrize("compiled", [False, True])
def test_claim_each_live_claims_as_claim_of_each(compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """claim_each_live (all own keys at once in pure Python, by name compiled) leaves the uniquer
    answering as claim() of each name one by one did, plain names and others mixed."""
    from xladoctor.ir import instruction_names

    monkeypatch.setattr(instruction_names, "_COMPILED", compiled)
    for batch_names in (["a", "add.1", "x.10"], ["a", "x.0", "add.1"], ["__x", "b"], ["f32", "c.2"]):
        fast, each = InstructionNames(), InstructionNames()
        batch = [_Named(n) for n in batch_names]
        fast.claim_each_live(batch)
        for n in batch_names:
            each.claim(n)
        asked = ["a", "add.1", "x.10", "x", "x.0", "__x", "b", "f32", "c.2", "add"]
        assert [fast.unique(n) for n in asked] == [each.unique(n) for n in asked], batch_names

