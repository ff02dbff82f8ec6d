"""The glossary: one word for each thing a user reads about, in every output and language.

An entry output was "output {0}" in one report, "entry result {0}" in a fix, "entry output" in
the HTML, "out_shardings leaf 0" in a fix's JAX advice and ``result[0]`` in another; XLA's
ShapeIndex won (``output {0}``, the Python path beside it when known).  The first error XLA
reports was "(XLA reports this one)" here and "[XLA stops here]" there.  Renderers (text, HTML, the fix texts that JSON
and SARIF carry) take these words from here, so they agree and a translator translates each
once (labels ``term.*``).  Counted nouns go through :func:`count`, so it is "1 finding".
"""

from __future__ import annotations

from . import FALLBACK, label, plural


def output(index: str, lang: str = FALLBACK, name: object = None) -> str:
    """An entry output, by XLA's ShapeIndex text, the one name every report gives it: ``output {0}``,
    with its Python path beside it when known (``jax.result_info``): ``output {0} (result[0])``.
    ``{}``, XLA's index of a result that is not a tuple, read as an empty list ("outputs {} fail"):
    unnamed, it says what it is, ``output {} (the whole result)``."""
    if name:
        return label("term.output_named", lang, index=index, name=name)
    if index == "{}":
        return label("term.output_whole", lang)
    return label("term.output", lang, index=index)


def parameter(index: object, lang: str = FALLBACK) -> str:
    """An entry parameter by number: ``parameter 3``."""
    return label("term.parameter", lang, index=index)


def fix_host(lang: str = FALLBACK) -> str:
    """E1200 remedy (a), the output stays in host memory (its entry layout gets ``S(5)``)."""
    return label("term.fix_host", lang)


def fix_device(lang: str = FALLBACK) -> str:
    """E1200 remedy (b), a move-to-device before the output is returned."""
    return label("term.fix_device", lang)


def xla_reports(lang: str = FALLBACK) -> str:
    """The tag of the finding XLA itself reports (it stops at the first)."""
    return label("term.xla_reports", lang)


def also_offending(lang: str = FALLBACK) -> str:
    """The tag of an output that is wrong too but that XLA, stopping earlier, does not name."""
    return label("term.also_offending", lang)


NOUNS = {"finding": ("term.finding_one", "term.finding_many"), "file": ("term.file_one", "term.file_many"),
         "message": ("term.message_one", "term.message_many"),
         "parameter": ("term.parameter_one", "term.parameter_many"), "job": ("term.job_one", "term.job_many"),
         "error_message": ("term.error_message_one", "term.error_message_many"),
         "occurrence": ("term.occurrence_one", "term.occurrence_many"),
         "argument": ("term.argument_one", "term.argument_many"),
         "more_message": ("term.more_message_one", "term.more_message_many")}


def count(n: int, noun: str, lang: str = FALLBACK) -> str:
    """``n`` and the noun, singular for one: ``1 finding``, ``2 findings`` (``noun`` from :data:`NOUNS`)."""
    return plural(n, *NOUNS[noun], lang)
