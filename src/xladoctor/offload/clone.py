"""The analysis' private copy of a module: :meth:`HloModule.clone <xladoctor.ir.module.HloModule.clone>`.

The copy lives in the IR (:mod:`xladoctor.ir.clone`), where the links it makes are written;
this name stays for the passes and tests that import it from here.
"""

from __future__ import annotations

from ..ir.clone import clone_module

__all__ = ["clone_module"]
