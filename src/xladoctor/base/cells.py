"""A Python source location as the user's own tool names it: a notebook cell as IPython does.

JAX's source metadata and Python's frames name code run in a Jupyter/IPython cell by the file
name IPython's compiler made up for it (``/tmp/ipykernel_123/4567.py``), which the user never
sees: IPython's own tracebacks say ``Cell In[3], line 6``.  Every view of a Python location
(:class:`xladoctor.ir.instruction.SourceLocation`, ``findings.source_line.SourceLine``, the
snippets and the fix code) goes through :func:`place`, so a report in a notebook speaks the
notebook's language and one outside it is unchanged.  IPython is never imported here: only a
shell that is already running (``sys.modules``) is asked.
"""

from __future__ import annotations

import sys


def cell_label(file: str) -> str | None:
    """``In[N]`` when ``file`` is the name the running IPython shell compiled cell N under, else None."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None) if ipython is not None else None
    shell = get() if callable(get) else None
    compiler = getattr(shell, "compile", None) if shell is not None else None
    numbers = getattr(compiler, "_filename_map", None)  # IPython's CachingCompiler: file name -> execution count
    if not isinstance(numbers, dict):
        return None
    number = numbers.get(file)
    return f"In[{number}]" if number is not None else None


def place(file: str, line: int, column: int | None = None) -> str:
    """``file:line`` (``:column`` when given), or IPython's ``Cell In[N], line L`` for a cell's code.

    Not escaped: the caller escapes it where it draws it, as it did the file name."""
    cell = cell_label(file)
    if cell is not None:
        return f"Cell {cell}, line {line}"
    return f"{file}:{line}" + (f":{column}" if column is not None else "")
