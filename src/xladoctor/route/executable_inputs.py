"""The route of an executable's inputs against the buffers supplied (E0102 before it happens):
the expected side an HLO module's entry computation layout or a file of shapes, the supplied
side another compile's entry layout or one shape per line; every mismatching parameter compared
(:mod:`xladoctor.inputs.compare`), and the comparison's Report (``inputs``; ``xladoctor.jax``'s
``check_inputs`` compares a call's arguments itself and builds the same document)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.errors import UsageError, located
from ..base.files import decode_text, read_path
from ..inputs.compare import ExpectedParameter, InputCheck, can_pair_by_name, check_inputs
from ..inputs.from_module import expected_from_module, names_are_metadata, supplied_from_module
from ..inputs.shapes_file import parse_shapes_file
from ..syntax.hlo_parser import parse_module
from .options import Options

if TYPE_CHECKING:
    from ..findings.model import Report
    from ..ir.module import HloModule


def route(expected: str, supplied: str | None, supplied_shapes: str | None, options: Options, pair: str = "auto",
          executable: str | None = None, replica: int | None = None, partition: int | None = None) -> Report:
    """Compare ``expected`` (a path, ``-``: stdin) with ``supplied`` (a module) or ``supplied_shapes``
    (a shapes file); ``pair``: ``auto``, ``index`` or ``name``, as ``inputs --pair``.  The Report's
    findings are the mismatches (E0102), its details the comparison
    (:class:`~xladoctor.findings.details.ComparedInputs`), its inputs the expected side."""
    from ..findings.details import ComparedInputs
    from ..findings.from_inputs import inputs_findings
    from ..findings.model import Report

    check, source, module = _compare(expected, supplied, supplied_shapes, pair, executable, replica, partition)
    return Report("inputs", (source,) if source else (), inputs_findings(check, source, module, options.lang),
                  options.lang, details=ComparedInputs(check, module))


def _read(path: str) -> tuple[str, str]:
    data, name = read_path(path)
    return decode_text(data, name), name


def _load_expected(text: str, source: str) -> tuple[list[ExpectedParameter], HloModule | None, bool]:
    if text.lstrip().startswith("HloModule"):
        module = parse_module(text, source)
        return expected_from_module(module), module, names_are_metadata(module)
    buffers = parse_shapes_file(text, source)
    return [ExpectedParameter(i, b.shape, b.name) for i, b in enumerate(buffers)], None, all(b.name for b in buffers)


def _compare(expected_path: str, supplied_path: str | None, shapes_path: str | None, pair: str,
             executable: str | None, replica: int | None, partition: int | None
             ) -> tuple[InputCheck, str, HloModule | None]:
    """The comparison, the expected side's name and (when it is HLO) its module, for findings' lines."""
    if expected_path == "-" and (supplied_path == "-" or shapes_path == "-"):
        raise UsageError("only one input can be read from stdin")
    exp_text, exp_source = _read(expected_path)
    expected, exp_module, expected_named = _load_expected(exp_text, exp_source)
    module_name = exp_module.name if exp_module is not None else None
    if supplied_path is not None:
        text, source = _read(supplied_path)
        module = parse_module(text, source)
        supplied = supplied_from_module(module)
        supplied_named = names_are_metadata(module)
    else:
        assert shapes_path is not None  # argparse: one of the two is required
        text, source = _read(shapes_path)
        supplied = parse_shapes_file(text, source)
        supplied_named = all(s.name for s in supplied)
    pairing = pair
    if pairing == "auto":
        pairing = "name" if expected_named and supplied_named and can_pair_by_name(expected, supplied) else "index"
    elif pairing == "name" and not can_pair_by_name(expected, supplied):
        raise UsageError("--pair name needs a unique name for every parameter on both sides")
    # A '?' dimension has no size: say where, in whichever input spells one.
    where = (exp_text, exp_source) if "?" in exp_text or "?" not in text else (text, source)
    with located(*where):
        check = check_inputs(expected, supplied, executable or module_name or "unknown",
                             replica, partition, pairing)
    return check, exp_source, exp_module
