"""The module's computation uniquer over its computations by name (ir/name_uniquer.ComputationNames)."""

from __future__ import annotations

import random

import pytest

from xladoctor.ir import name_uniquer
from xladoctor.ir.name_uniquer import ComputationNames, NameUniquer
from xladoctor.syntax.hlo_parser import parse_module

NAMES = ["a", "a.1", "a.0", "p.3", "f32", "__x", "copy", "copy.2", "r.012", "n.-1", "a.1.0", "region_0.2_c1",
         "a.1000000000000000000", "a.9223372036854775808"]


@pytest.fixture
def drop_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries dropped from the first computation on (a module of thousands, as jax_entry's)."""
    monkeypatch.setattr(name_uniquer, "_SHARED_FROM", 0)


def test_it_answers_every_call_as_the_plain_port_while_computations_join_and_leave(drop_always):
    """Random runs of what the module asks (joins given out or claimed, removals, every other
    call): the same answers as a NameUniquer that keeps every name in its own table."""
    rng = random.Random(56)
    dropped = 0
    for _ in range(3000):
        plain, live = NameUniquer(), {}
        shared = ComputationNames(live)
        for _ in range(rng.randint(1, 24)):
            form, name = rng.choice(["join", "claim_join", "leave", "unique", "unique_keeping_suffix",
                                     "numbered", "claim", "release", "taken"]), rng.choice(NAMES)
            if form == "join":
                got = shared.unique(name)
                assert got == plain.unique(name), (form, name)
                live[got] = object()
                shared.joined(got)
            elif form == "claim_join":
                shared.claim(name)
                plain.claim(name)
                live[name] = object()
                shared.joined(name)
            elif form == "leave":
                if live:
                    gone = rng.choice(sorted(live))
                    del live[gone]
                    shared.left(gone)
            else:
                assert getattr(shared, form)(name) == getattr(plain, form)(name), (form, name)
            dropped += sum(1 for n in live if n not in shared._ids)
        for name in NAMES:
            assert shared.taken(name) == plain.taken(name), name
    assert dropped  # the map did stand for some entries


def test_a_copy_claiming_a_modules_names_at_once_answers_as_one_claiming_each(drop_always):
    """claim_all_of (the offload analysis' copy: the input's computations by name) against a
    NameUniquer claiming each name, then random runs of every call, joins and removals included."""
    rng = random.Random(57)
    for _ in range(2000):
        base = {n: object() for n in rng.sample(NAMES, rng.randint(0, len(NAMES)))}
        plain, live = NameUniquer(), {}
        shared = ComputationNames(live)
        for name in rng.sample(NAMES, rng.randint(0, 3)):  # claims made before (a copy's joins)
            plain.claim(name)
            shared.claim(name)
        for name in base:
            plain.claim(name)
        shared.claim_all_of(base)
        for _ in range(rng.randint(1, 16)):
            form, name = rng.choice(["join", "leave", "unique", "unique_keeping_suffix", "numbered", "claim",
                                     "release", "taken"]), rng.choice(NAMES)
            if form == "join":
                got = shared.unique(name)
                assert got == plain.unique(name), (form, name)
                live[got] = object()
                shared.joined(got)
            elif form == "leave":
                if live:
                    gone = rng.choice(sorted(live))
                    del live[gone]
                    shared.left(gone)
            else:
                assert getattr(shared, form)(name) == getattr(plain, form)(name), (form, name)
        for name in NAMES:
            assert shared.taken(name) == plain.taken(name), name


def test_a_parsed_module_keeps_no_entry_for_a_computation_named_as_its_own_root(drop_always):
    module = parse_module("""HloModule m

add.1_c1 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

region.2 {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}

unused {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}

ENTRY main {
  p = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add.1_c1
}
""")
    names = module.computation_names
    assert "add.1_c1" not in names._ids and "main" not in names._ids  # the module's map stands for them
    assert names._ids.get("region") == 2  # 'region.2' is filed under its root
    assert module.unique_computation_name("add.1_c1") == "add.1_c1.1"
    module.remove_computations([module.computation("unused"), module.computation("region.2")])
    assert "unused" in names._ids  # out of the map: its own entry again, still taken (XLA never forgets)
    assert names.taken("unused") and names.taken("region.2") and names.unique("unused") == "unused.1"


def test_a_module_of_few_computations_keeps_its_entries():
    """Below _SHARED_FROM computations the checks cost more than the entries: none is dropped."""
    live: dict[str, object] = {}
    names = ComputationNames(live)
    for name in ("a", "b.1_c1", "main"):
        live[names.unique(name)] = object()
        names.joined(name)
    assert set(names._ids) == {"a", "b.1_c1", "main"} and not names._implied
