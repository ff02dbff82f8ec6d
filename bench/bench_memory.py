"""Bytes per instruction of a parsed module, by object kind (issue 12: memory ≤ 3× the text).

    python bench/bench_memory.py                       # compiled-TPU-style and jax_entry, 100k
    python bench/bench_memory.py --kinds parse --sizes 10000

For each module: ``tracemalloc``'s net allocation of ``parse_module`` (the module that stays
alive, the text excluded), the RSS growth, and a walk of the parsed module that charges every
object reachable from an instruction to one kind (the instruction object, its operand tuple,
users dict, attribute dict, the strings in it, the other per-instruction containers, shapes,
and the module's name indexes).  An object reachable twice (a shared shape, an interned
string) is charged once, so the sum is the module's real footprint.  Not part of the tests.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE)]

from bench_all import _module_text  # noqa: E402  (the texts bench_all times: one generator for both)


class _Sizer:
    """Charges each object once (by id) to the first kind that reaches it."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.bytes: Counter[str] = Counter()

    def add(self, kind: str, obj: object) -> bool:
        if id(obj) in self.seen:
            return False
        self.seen.add(id(obj))
        self.bytes[kind] += sys.getsizeof(obj)
        return True

    def deep(self, kind: str, obj: object) -> None:
        """``obj`` and what it holds (containers, dataclass/slot fields), not instructions."""
        from xladoctor.ir.computation import HloComputation
        from xladoctor.ir.instruction import HloInstruction
        stack = [obj]
        while stack:
            o = stack.pop()
            if isinstance(o, (HloInstruction, HloComputation, type)) or o is None:
                continue
            if isinstance(o, int) and -5 <= o <= 256:  # cached by CPython: nobody's memory
                continue
            if not self.add(kind, o):
                continue
            if isinstance(o, dict):
                stack.extend(o.keys())
                stack.extend(o.values())
            elif isinstance(o, (list, tuple, set, frozenset)):
                stack.extend(o)
            elif hasattr(o, "__dict__"):
                stack.append(o.__dict__)
            for slot in getattr(type(o), "__slots__", ()):
                if slot != "__weakref__" and hasattr(o, slot):
                    stack.append(getattr(o, slot))


def breakdown(module) -> tuple[Counter[str], int]:
    """Bytes by kind over every instruction of ``module``, and the instruction count."""
    s = _Sizer()
    n = 0
    for comp in module.computations:
        s.deep("computation containers", comp.instructions)
        for instr in comp.instructions:
            n += 1
            s.add("instruction objects", instr)
            ops = getattr(instr, "_operands", None)  # as kept: one operand is kept bare, not in a tuple
            s.add("operand tuples", ops if isinstance(ops, tuple) else instr.operands if ops is None else ())
            s.add("users", instr.users)
            for part in (getattr(instr.users, "_items", None), getattr(instr.users, "_index", None)):
                if part is not None:  # Users: the vector itself (a separate list before), an index past 16 users
                    s.add("users", part)
            s.deep("names and opcodes", instr.name)
            attrs = getattr(instr, "_attributes", None)  # as kept: reading .attributes would decode it
            if attrs is None:  # an IR without lazily read attributes (an older tree, for before/after)
                attrs = instr.attributes
            if isinstance(attrs, dict):
                s.add("attribute dicts", attrs)
                for k, v in attrs.items():
                    s.deep("attribute names", k)
                    s.deep("metadata text" if k == "metadata" else "attribute values", v)
            else:
                s.deep("attribute text", attrs)
            s.deep("other: _extra", getattr(instr, "_extra", None))  # the rare fields, when any is set
            for slot in ("called", "frontend_attributes", "output_to_operand_aliasing",
                         "control_predecessors", "literal", "operand_shapes_text",
                         "custom_call_target", "parameter_number", "tuple_index", "line", "col"):
                s.deep(f"other: {slot}", getattr(instr, slot, None))
            s.deep("shapes", instr.shape)
            md = getattr(instr, "_metadata", False)
            if md not in (False, None):
                s.deep("decoded metadata", md)
    names = getattr(module, "names", None)
    if names is not None:
        s.deep("module name index", names)
    for comp in module.computations:
        for value in vars(comp).values() if hasattr(comp, "__dict__") else ():
            if isinstance(value, dict):
                s.deep("computation containers", value)
    return s.bytes, n


def measure(kind: str, n: int) -> None:
    from xladoctor.syntax.hlo_parser import parse_module
    text = _module_text(kind, n)
    gc.collect()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    module = parse_module(text)
    seconds = time.perf_counter() - t0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    del module
    gc.collect()
    tracemalloc.start()
    module = parse_module(text)
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    by_kind, count = breakdown(module)
    size = len(text.encode())
    print(f"\n{kind}, {count:,} instructions, text {size / 1e6:.1f} MB ({size / count:.0f} B/instr), "
          f"parse {seconds:.2f} s ({seconds / count * 1e6:.1f} us/instr)")
    print(f"  tracemalloc kept {kept / count:.0f} B/instr ({kept / size:.2f}x text), "
          f"peak during parse {peak / count:.0f} B/instr; ru_maxrss growth {(rss1 - rss0) * 1024 / count:.0f} B/instr")
    total = sum(by_kind.values())
    for k, b in by_kind.most_common():
        print(f"  {k:<24} {b / count:7.1f} B/instr  {100 * b / total:5.1f}%")
    print(f"  {'walked total':<24} {total / count:7.1f} B/instr  ({total / size:.2f}x text)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="+", default=["parse", "jax_entry"], choices=["parse", "jax_entry"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[100_000])
    args = ap.parse_args()
    for kind in args.kinds:
        for n in args.sizes:
            measure(kind, n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
