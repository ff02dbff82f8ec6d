"""``xladoctor relayout --from SHAPE --to SHAPE IN OUT``: re-store array bytes in another layout.

IN holds the bytes of a buffer of ``--from`` (raw, exactly ``physical_bytes`` long,
read bounded by that size); an ``.npy`` IN with ``--from``'s dimensions is the logical
array whatever ``--from``'s layout, a 1-D uint8 ``.npy`` of ``physical_bytes`` elements
is the stored bytes (its header is checked before its data are read,
:mod:`xladoctor.inputs.npy_file`).  OUT gets the bytes of ``--to``; an OUT ending in
``.npy`` is written as an array when ``--to`` is dense default (element types numpy
lacks, such as bf16, as their bit patterns in unsigned integers), else as a uint8 array
of the stored bytes.  IN ``-`` reads raw
bytes from stdin and OUT ``-`` writes raw bytes to stdout.  Needs numpy.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys

from ...base.errors import InputError, UsageError
from ...base.labels import label
from ...inputs.relayout import (
    check_same_array,
    numpy_dtype,
    numpy_has_type,
    stored_size,
    tile,
    untile,
)
from ...inputs.tiling_plan import RelayoutError
from ...ir.shape import Shape, default_layout
from ...syntax.shape_parser import parse_shape
from ._atomic import refuse_overwriting_inputs, write_output
from ._common import help_text, print_json

NAME = "relayout"
HELP = "cli.relayout.help"
ORDER = 45
DESCRIPTION = "cli.relayout.description"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", metavar="SHAPE", required=True,
                        help=help_text(parser, "cli.relayout.from"))
    parser.add_argument("--to", dest="target", metavar="SHAPE", required=True,
                        help=help_text(parser, "cli.relayout.to"))
    parser.add_argument("input", metavar="IN", help=help_text(parser, "cli.relayout.input"))
    parser.add_argument("output", metavar="OUT", help=help_text(parser, "cli.relayout.output"))
    parser.add_argument("--allow-subtile-padding", action="store_true",
                        help=help_text(parser, "cli.relayout.allow_subtile_padding"))
    parser.add_argument("--truncate", action="store_true",
                        help=help_text(parser, "cli.relayout.truncate"))
    parser.add_argument("--json", action="store_true", help=help_text(parser, "cli.json"))


def is_dense_default(shape: Shape) -> bool:
    """Row-major with no layout attributes that change the bytes (S(n) allowed)."""
    layout = shape.effective_layout
    return layout.minor_to_major == default_layout(shape.rank).minor_to_major and not layout.tiles and \
        layout.element_size_in_bits == 0 and not layout.split_configs


def _parse(text: str, flag: str) -> Shape:
    shape = parse_shape(text, flag)
    if not shape.is_array:
        raise UsageError(f"{flag}: relayout works on one array shape, not {shape}")
    return shape


def _read_input(path: str, source: Shape, stored: int):
    """Return the logical array (an ``.npy`` of ``--from``'s dimensions) or the raw stored bytes, read bounded:
    raw input is refused as soon as it passes the ``stored`` bytes a buffer of ``--from`` has."""
    if path != "-" and path.endswith(".npy"):
        from ...inputs.npy_file import logical_or_stored, read_npy

        return logical_or_stored(read_npy(path), source, stored, path)
    from ...base.files import max_input_bytes, read_path

    if stored > max_input_bytes():  # a buffer too big to read whole: the general bound says so
        data, _ = read_path(path)
    else:
        data, _ = read_path(path, stored, what=label("status.relayout_input_bound", shape=source))
    return None, data


# The output is allocated whole (and once more while padding), so its size is checked
# before anything is allocated: at most this many times the input, or this floor.
MAX_OUTPUT_RATIO = 1024
MAX_OUTPUT_FLOOR = 1 << 30


def _input_size(path: str) -> int | None:
    """Size of IN from fstat (None for stdin or anything that is not a regular file)."""
    if path == "-":
        return None
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", path, 1, 1) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, expected a file", path, 1, 1)
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _check_output_size(args: argparse.Namespace, source: Shape, target: Shape) -> None:
    """Refuse a --to whose stored size dwarfs the data (``T(17179869184)`` on one byte: 16 GiB)."""
    want_in = stored_size(source, args.allow_subtile_padding)
    have = _input_size(args.input)
    if have is not None and not args.input.endswith(".npy") and have != want_in:
        raise InputError(f"input has {have} bytes but a buffer of {source} has {want_in} "
                         f"(physical_bytes); is --from the layout the bytes were written in?", args.input, 1, 1)
    out_bytes = stored_size(target, args.allow_subtile_padding)
    basis = max(want_in, have or 0)
    limit = max(MAX_OUTPUT_FLOOR, MAX_OUTPUT_RATIO * basis)
    if out_bytes > limit:
        raise UsageError(f"--to {target} stores {out_bytes:,} bytes for an input of {basis:,} bytes "
                         f"(more than {MAX_OUTPUT_RATIO}x and over {MAX_OUTPUT_FLOOR:,} bytes): refusing to "
                         "allocate it; check the tile sizes")


def run(args: argparse.Namespace) -> int:
    source = _parse(args.source, "--from")
    target = _parse(args.target, "--to")
    if args.output != "-":
        refuse_overwriting_inputs(args.output, [args.input])
    try:
        import numpy as np
    except ImportError:
        raise UsageError("relayout needs numpy: pip install 'xladoctor[numpy]'") from None
    try:
        check_same_array(source, target)
        _check_output_size(args, source, target)
        want = stored_size(source, args.allow_subtile_padding)
        array, data = _read_input(args.input, source, want)
        if array is None:
            if len(data) != want:
                raise InputError(f"input has {len(data)} bytes but a buffer of {source} has {want} "
                                 f"(physical_bytes); is --from the layout the bytes were written in?",
                                 args.input, 1, 1)
            array = untile(data, source, dtype=f"V{np.dtype(numpy_dtype(source)).itemsize}",
                           allow_subtile_padding=args.allow_subtile_padding)
        out = tile(array, target, allow_subtile_padding=args.allow_subtile_padding, truncate=args.truncate)
    except RelayoutError as e:
        raise UsageError(str(e)) from None
    if args.output == "-":
        if args.json:
            raise UsageError("--json prints to stdout, so it cannot be used with OUT '-'")
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
        return 0
    if args.output.endswith(".npy"):
        from ...inputs.npy_file import bits_dtype, save_npy

        if is_dense_default(target):
            dtype = bits_dtype(target)
            npy = save_npy(np.frombuffer(out, dtype).reshape(target.dimensions))
            # without ml_dtypes numpy_dtype(bf16) is <u2 too: the file holds bit patterns either way
            what = label("status.npy_array") if numpy_has_type(target) else \
                label("status.npy_bits", dtype=str(dtype), element=target.element_type.name)
        else:
            npy, what = save_npy(np.frombuffer(out, np.uint8)), label("status.npy_array")
        write_output(args.output, npy, what, [args.input])
    else:
        write_output(args.output, out, label("status.raw_bytes", shape=target), [args.input])
    if args.json:
        print_json({"command": "relayout", "from": str(source), "to": str(target),
                    "input": args.input, "output": args.output,
                    "input_bytes": None if data is None else len(data), "output_bytes": len(out),
                    "output_format": "npy" if args.output.endswith(".npy") else "raw"}, schema="relayout")
    return 0
