"""``.npy`` files for ``relayout``: read bounded and exact, written with a dtype numpy can load.

``numpy.load`` allocates what the header declares before reading a byte, so a 100-byte
file whose header says ``shape (274877906944,)`` of ``<f4`` asks for 1 TiB.  Here the
header is read with numpy's own header reader, the declared size is compared with the
bytes the file holds (and with :func:`xladoctor.base.files.max_input_bytes`) first, and only
then are the data read, through the one bounded reader.

Element types numpy has no dtype for (``bf16``, the ``f8``/``f6``/``f4`` kinds, ``s4`` ...)
are written as the unsigned integers of the same width holding their bit patterns: an
``ml_dtypes`` array saved by numpy gets the header ``'<V2'`` (void), which no reader can
interpret, while ``'<u2'`` loads anywhere and ``.view(ml_dtypes.bfloat16)`` restores it.
"""

from __future__ import annotations

import io
import math
from typing import Any

from ..base.errors import InputError
from ..ir.shape import Shape
from .relayout import numpy_dtype


def read_npy(path: str) -> Any:
    """The array stored in the ``.npy`` file ``path``; every malformed or oversized file is an :class:`InputError`."""
    import numpy as np
    from numpy.lib import format as npy_format

    from ..base.files import check_readable_kind, max_input_bytes, read_bounded

    check_readable_kind(path)
    try:
        with open(path, "rb") as f:
            try:
                version = npy_format.read_magic(f)
                reader = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}
                if version not in reader:
                    raise ValueError(f"format version {version[0]}.{version[1]} (1.0 and 2.0 are read)")
                dims, fortran, dtype = reader[version](f)
            except (OSError, MemoryError):
                raise
            except Exception as e:  # numpy's header reader: ValueError, SyntaxError, tokenize's TokenError ...
                raise InputError(f"not a readable .npy file: {type(e).__name__}: {e}", path, 1, 1) from None
            if dtype.hasobject:
                raise InputError("not a readable .npy file: it holds Python objects", path, 1, 1)
            nbytes = math.prod(dims) * dtype.itemsize
            limit = max_input_bytes()
            if nbytes > limit:
                raise InputError(f".npy header declares {list(dims)} of {dtype} ({nbytes:,} bytes), more than the "
                                 f"{limit:,} bytes xladoctor reads whole", path, 1, 1)
            data = read_bounded(f, path, nbytes + 1)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", path, 1, 1) from None
    if len(data) != nbytes:
        raise InputError(f".npy header declares {list(dims)} of {dtype} ({nbytes:,} bytes) but the file holds "
                         f"{len(data):,} data bytes", path, 1, 1)
    try:  # an empty array may still declare dimensions numpy cannot hold (0 x 2^64)
        return np.frombuffer(data, dtype).reshape(dims, order="F" if fortran else "C")
    except ValueError as e:
        raise InputError(f"not a readable .npy file: dimensions {list(dims)}: {e}", path, 1, 1) from None


def logical_or_stored(arr: Any, source: Shape, stored: int, path: str) -> tuple[Any, bytes | None]:
    """``(array, None)`` for a logical array of ``source`` (its dimensions), ``(None, bytes)`` for the
    1-D ``uint8`` array of its ``stored`` bytes (what :func:`save_npy` writes for a tiled layout)."""
    import numpy as np

    if tuple(arr.shape) == tuple(source.dimensions):
        return arr, None
    if arr.ndim == 1 and arr.dtype == np.uint8 and arr.shape[0] == stored:
        return None, arr.tobytes()
    raise InputError(f".npy array has dimensions {list(arr.shape)} of {arr.dtype}: neither the logical array of "
                     f"--from {source} (dimensions {list(source.dimensions)}) nor the uint8 array of its {stored:,} "
                     "stored bytes", path, 1, 1)


def bits_dtype(shape: Shape) -> Any:
    """The dtype a logical ``.npy`` of ``shape`` is written with: numpy's own, or the unsigned integer
    of the element's width where numpy has none (``ml_dtypes`` types would be saved as void)."""
    import numpy as np

    dtype = np.dtype(numpy_dtype(shape))
    return dtype if dtype.isbuiltin == 1 else np.dtype(f"<u{dtype.itemsize}")


def save_npy(array: Any) -> bytes:
    """The ``.npy`` bytes of ``array``."""
    import numpy as np

    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()
