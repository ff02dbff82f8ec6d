"""Seeded mutations of corpus modules, read by jaxlib's HLO parser and by every xladoctor command.

Used by ``tests/test_jaxlib_differential.py`` (a fixed seed in CI) and, for longer runs, as a
script: ``python tests/jaxlib_differential.py SEED COUNT`` prints each divergence.

A *divergence* is a text on which jaxlib's parser and a command disagree about acceptance:
jaxlib parses it and the command refuses it (exit 2), or jaxlib refuses it and the command
reads it.  The commands are ``hlo`` (parse, summarise), ``offload`` (parse, analyse) and
``check --full`` (the same analysis); a refusal by XLA's verifier is not one (the compiler
refuses those texts too, after parsing: the commands report it as a finding, not exit 2).
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = (HERE.parent / "src" / "xladoctor" / "examples", HERE / "data" / "offload")

_FUSION_KINDS = ("kLoop", "kInput", "kOutput", "kCustom", "kFrob", "kloop", "Loop", "")
_OPCODES = ("add", "negate", "copy", "tuple", "bitcast", "reshape", "get-tuple-element", "fusion", "call", "frob")
_TYPES = ("f32", "s32", "bf16", "pred", "u8", "f64", "token", "f33")


def corpus() -> list[str]:
    """The modules mutated: the bundled examples and the offload scenarios (real HLO, with layouts)."""
    texts = []
    for folder in SOURCES:
        for path in sorted(folder.glob("*.hlo")):
            texts.append(path.read_text(encoding="utf-8"))
    return texts


def _sub_one(rng: random.Random, text: str, pattern: str, repl) -> str:
    hits = list(re.finditer(pattern, text))
    if not hits:
        return text
    m = rng.choice(hits)
    new = repl(m) if callable(repl) else repl
    return text[:m.start()] + new + text[m.end():]


def _mutations(rng: random.Random):
    """Each mutation: a name and a function of the text."""
    return (
        ("fusion-kind", lambda t: _sub_one(rng, t, r"kind=k\w+", lambda m: "kind=" + rng.choice(_FUSION_KINDS))),
        ("gte-index", lambda t: _sub_one(rng, t, r"index=\d+", lambda m: f"index={int(m.group()[6:]) + rng.choice((1, 2, 7, -1))}")),
        ("dimension", lambda t: _sub_one(rng, t, r"(?<=[\[,])\d+(?=[\],])", lambda m: str(rng.choice((0, 1, 3, int(m.group()) + 1))))),
        ("minor-to-major", lambda t: _sub_one(rng, t, r"\{(\d(?:,\d)*)(?=[}:])", lambda m: "{" + rng.choice(
            (m.group(1)[::-1], m.group(1) + ",0", "0," + m.group(1), m.group(1)[2:], "9" + m.group(1)[1:])))),
        ("layout-attribute", lambda t: _sub_one(rng, t, r"\{(\d(?:,\d)*)\}", lambda m: "{" + m.group(1) + rng.choice(
            (":T(8,128)", ":T(2,1)", ":S(5)", ":S(1)", ":E(4)", ":T(0)", ":T(8,128)S(5)", ":P(s32)", ":D(D,C)", ":Q")) + "}")),
        ("element-type", lambda t: _sub_one(rng, t, r"\b(?:f32|s32|bf16|pred|u32|f16)(?=\[)", lambda m: rng.choice(_TYPES))),
        ("opcode", lambda t: _sub_one(rng, t, r"(?<=\} )[a-z][a-z-]*(?=\()|(?<=\] )[a-z][a-z-]*(?=\()",
                                      lambda m: rng.choice(_OPCODES))),
        ("operand", lambda t: _sub_one(rng, t, r"(?<=\()[\w.%-]+(?=[,)])", lambda m: rng.choice(("nope", m.group() + "x", "")))),
        ("parameter-number", lambda t: _sub_one(rng, t, r"parameter\(\d+\)", lambda m: f"parameter({rng.choice((0, 1, 5))})")),
        ("drop-attribute", lambda t: _sub_one(rng, t, r", (?:dimensions|calls|to_apply|index|custom_call_target|kind|"
                                              r"slice|body|condition)=[^,\n]*", "")),
        ("add-attribute", lambda t: _sub_one(rng, t, r"\n", lambda m: rng.choice((", frob=1\n", ", sharding={replicated}\n",
                                                                                 ", metadata={op_name=\"x\"}\n", ", index=0\n")))),
        ("drop-line", lambda t: _drop_line(rng, t)),
        ("drop-char", lambda t: _drop_char(rng, t)),
    )


def _drop_line(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    return "\n".join(lines[:i] + lines[i + 1:])


def _drop_char(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text))
    return text[:i] + text[i + 1:]


def mutated(seed: int, count: int, base: list[str] | None = None) -> list[tuple[str, str]]:
    """``count`` (mutation name, text) pairs, the same for the same seed (of ``base``, else :func:`corpus`)."""
    rng = random.Random(seed)
    base = base if base is not None else corpus()
    out = []
    muts = _mutations(rng)
    while len(out) < count:
        name, fn = rng.choice(muts)
        text = fn(rng.choice(base))
        out.append((name, text))
    return out


def commands_say(text: str) -> dict[str, str]:
    """Each command's acceptance of ``text``: ``ok``, ``refused: MESSAGE`` (exit 2: parse or input
    error) or ``crashed: ...`` (anything else raised: a bug)."""
    from xladoctor.base.errors import InputError, located
    from xladoctor.route.module_analysis import analyse_module
    from xladoctor.route.options import Options
    from xladoctor.syntax.hlo_parser import parse_module
    from xladoctor.triage.hlo_summary import summarize

    out: dict[str, str] = {}
    try:
        module = parse_module(text, "t.hlo")
    except InputError as e:
        return {"hlo": f"refused: {e}", "offload": f"refused: {e}"}
    try:
        with located(text, "t.hlo"):
            summarize(module)
        out["hlo"] = "ok"
    except InputError as e:
        out["hlo"] = f"refused: {e}"
    except Exception as e:
        out["hlo"] = f"crashed: {type(e).__name__}: {e}"
    try:
        module = parse_module(text, "t.hlo")
        with located(text, "t.hlo"):
            analyse_module(module, text, "t.hlo", Options())
        out["offload"] = "ok"
    except InputError as e:
        out["offload"] = f"refused: {e}"
    except Exception as e:
        out["offload"] = f"crashed: {type(e).__name__}: {e}"
    return out


# Refusals stricter than jaxlib's parser, deliberate and named in docs/robustness.md: array shapes whose
# layout XLA's shape validation refuses (the compile would), which this parser refuses at once.
VALIDATED_SHAPE = ("minor_to_major field has", "tile dimensions must be positive", "a tile must have at least",
                   "element size in bits must not be negative", "minor to major size is",
                   "dim_level_types field contains")


def named(kind: str, ours: dict[str, str]) -> str | None:
    """The docs/robustness.md name of a divergence, or None (an unexplained one: a bug)."""
    if kind.endswith("we-refuse") and any(p in said for said in ours.values() for p in VALIDATED_SHAPE):
        return "validated-shape"
    return None


def divergences(cases: list[tuple[str, str]]) -> list[tuple[str, str, str, dict[str, str], dict]]:
    """(mutation, text, kind, ours, jaxlib's answer) for each text where a command and jaxlib disagree."""
    from xla_corpus import jaxlib_views

    theirs = jaxlib_views([t for _, t in cases])
    out = []
    for (name, text), j in zip(cases, theirs):
        if j["status"] == "crashed":
            continue  # jaxlib aborts: named in docs/robustness.md (jaxlib-aborts), we refuse with a message
        ours = commands_say(text)
        for command, said in ours.items():
            if said.startswith("crashed"):
                out.append((name, text, f"{command}-crashed", ours, j))
            elif (said == "ok") != (j["status"] == "ok"):
                kind = "we-refuse" if j["status"] == "ok" else "we-accept"
                out.append((name, text, f"{command}-{kind}", ours, j))
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    if sys.argv[3:] == ["xla"]:  # XLA's own test modules (tests/data/xla_tests) instead
        from xla_corpus import modules

        found = divergences(mutated(seed, count, [m.text for m in modules()]))
    else:
        found = divergences(mutated(seed, count))
    for name, text, kind, ours, j in found:
        print("=" * 20, kind, name, ours, j.get("message", "")[:200])
        print(text[:3000])
    print(f"{len(found)} divergences in {count} texts", file=sys.stderr)
