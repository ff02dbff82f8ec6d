"""Words people read come from the label files (src/xladoctor/base/labels/*.toml), not from Python.

A translator edits one TOML file per language and never opens code; that only holds while no
English sentence is written into the code that shows things: the renderers (``report/``), the
commands (``commands/``: help, status lines), ``xladoctor.jax``'s display text and the oracle's
explanations (``oracle/``).  This test reads those packages with ``ast`` and fails on a string
constant that is English prose, outside what is not prose by construction:

- docstrings and attribute docs (bare string statements);
- diagnostics: the message of a ``raise``, of an ``InputError``/``UsageError`` or of a parser's
  ``expect`` (``file:line:col: message``, like the parser's, follows XLA's own English wording and
  stays English; see README, Architecture);
- text that is matched, not shown: regular expressions and the operands of ``==``/``in``, which
  compare against XLA's own messages;
- markup: HTML tags and attributes, CSS class lists (``"mono wrap"``), the page's
  Content-Security-Policy.

``KNOWN`` lists the prose literals not yet moved, by file, so the test fails on a new one (and on
one that has gone, so the list only shrinks).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "xladoctor"
AREAS = ("report", "cli/commands", "jax", "oracle")
_PROSE = re.compile(r"[A-Za-z]{2,},? [a-z]{2,}")  # two words in a row, the second lowercase: a sentence
_MARKUP = re.compile(r"<[^<>]*>|<[^<>]*$|^[^<>]*>|&#?\w+;|\b[\w-]+=\"[^\"]*\"?|\{[^{}]*\}")
_MATCHERS = {"compile", "search", "match", "fullmatch", "sub", "findall", "finditer", "split"}
_DIAGNOSTICS = {"InputError", "UsageError", "XlaDoctorError", "expect"}
# Class names of the HTML report's stylesheet (report/templates): a string of only these is a class list.
_CSS_CLASSES = {"mono", "name", "wrap", "path", "shape", "chip", "host", "bad", "warn", "ok", "big", "edge", "cross"}
_CSP = re.compile(r"^default-src ")
# Prose literals not moved to the label files yet (file -> texts).  Remove an entry when its text
# moves; never add one: put the new text in labels/en.toml (and fa.toml) instead.
KNOWN: dict[str, list[str]] = {
    # a row key of the HTML "findings by code" table, computed before the page's language is known
    "report/html.py": ["HostOffloader failure"],
}


def _not_shown(tree: ast.AST) -> set[int]:
    """ids of constants that never reach a reader as English prose (see the module docstring)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.JoinedStr)):
            skip |= {id(n) for n in ast.walk(node.value)}
        elif isinstance(node, ast.Raise) and node.exc is not None:
            skip |= {id(n) for n in ast.walk(node.exc)}
        elif isinstance(node, ast.Call) and _called(node) in _DIAGNOSTICS:
            skip |= {id(n) for n in ast.walk(node)}
        elif isinstance(node, ast.Compare):
            skip |= {id(n) for part in (node.left, *node.comparators) for n in ast.walk(part)}
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MATCHERS
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            skip |= {id(n) for arg in node.args[:1] for n in ast.walk(arg)}
    return skip


def _called(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def is_prose(value: str) -> bool:
    """English words in a row once markup is taken out: what a reader reads."""
    if set(value.split()) <= _CSS_CLASSES or _CSP.match(value):
        return False
    return bool(_PROSE.search(_MARKUP.sub(" ", value)))


def prose_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _not_shown(tree)
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                  and is_prose(node.value))


def found() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for area in AREAS:
        for path in sorted((SRC / area).rglob("*.py")):
            texts = [text for _, text in prose_literals(path)]
            if texts:
                out[str(path.relative_to(SRC))] = texts
    return out


def test_no_english_sentence_is_written_into_the_code_that_shows_it():
    new = {path: [t for t in texts if t not in KNOWN.get(path, [])] for path, texts in found().items()}
    new = {path: texts for path, texts in new.items() if texts}
    assert not new, ("English prose in Python: put it in src/xladoctor/base/labels/en.toml (with its Persian in "
                     f"fa.toml) and read it with labels.label: {new}")


def test_the_list_of_texts_not_yet_moved_only_shrinks():
    now = found()
    gone = {path: [t for t in texts if t not in now.get(path, [])] for path, texts in KNOWN.items()}
    gone = {path: texts for path, texts in gone.items() if texts}
    assert not gone, f"moved or removed: take them out of KNOWN: {gone}"


@pytest.mark.parametrize("text", [
    "cannot check: ",                          # a sentence
    " is returned, move that value back:\n",  # a fragment of an f-string
    "HLO module ",                             # a name and a word
])
def test_prose_is_recognised(text):
    assert is_prose(text)


@pytest.mark.parametrize("text", [
    '<details class="path-table"><summary>', "mono chip host", "{n:,} B", ".npy", "schema_version",
    "default-src 'none'; style-src 'unsafe-inline'", "E1200", "pinned_host", " (x3)",
])
def test_markup_keys_and_numbers_are_not(text):
    assert not is_prose(text)


def test_what_is_matched_or_raised_is_not_a_label(tmp_path):
    """A regex, a comparison with XLA's text and a diagnostic stay in the code; a printed sentence does not."""
    path = tmp_path / "m.py"
    path.write_text('"""a docstring is no label"""\nimport re\n'
                    'P = re.compile("starting from (\\\\S+)")\n'
                    'def f(m, e):\n'
                    '    if "not found here" in m:\n'
                    '        raise ValueError("this is a diagnostic")\n'
                    '    r.expect("->", "in entry layout")\n'
                    '    print(f"wrote the file {e}")\n')
    assert prose_literals(path) == [(8, "wrote the file ")]


if __name__ == "__main__":  # list what the test sees: python tests/test_ui_text.py
    for path, texts in found().items():
        for text in texts:
            print(f"{path}: {text!r}")
