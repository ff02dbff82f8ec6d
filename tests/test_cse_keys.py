"""HloCSE's cheap keys made inline (hlo_cse._cheap_keys) equal the ones _cheap_key makes.

The interpreted key pass spells the plain and the commutative binary keys out in a comprehension
(issue 36); any difference from :func:`_cheap_key` would merge other instructions, or fewer."""

from __future__ import annotations

from pathlib import Path

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.offload.passes.hlo_cse import _cheap_key, _cheap_keys
from xladoctor.syntax.hlo_parser import parse_module

EDGES = """HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  a = f32[4] add(p, q)
  b = f32[4] add(q, p)
  c = f32[4] add(p, p)
  m = f32[4] multiply(a, b)
  s = f32[4] subtract(q, p)
  k = f32[4] constant({1, 2, 3, 4})
  t = (f32[4], f32[4]) tuple(a, b)
  g = f32[4] get-tuple-element(t), index=1
  ROOT r = (f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(c, m, s, k, g)
}
"""


def test_inline_keys_are_cheap_keys(tmp_path: Path) -> None:
    modules = [parse_module(EDGES)]
    for path in [*CORPUS, *generated_hlo(tmp_path, 40)]:
        try:
            modules.append(parse_module(path.read_text()))
        except Exception:  # input errors are not this test's
            continue
    compared = 0
    for module in modules:
        for comp in module.computations:
            assert _cheap_keys(comp.instructions) == [_cheap_key(i) for i in comp.instructions], comp.name
            compared += len(comp.instructions)
    assert compared > 1000
    edges = modules[0].entry
    keys = dict(zip([i.name for i in edges.instructions], _cheap_keys(edges.instructions)))
    assert keys["a"] == keys["b"] != keys["c"]  # either order of a commutative pair, one key
    assert keys["s"] != keys["a"] and keys["p"] is None
