"""Check JAX programs directly (``pip install xladoctor[jax]``); importing this imports jax.

* :func:`check_offload` - E1200 before compiling a jitted function (lowered for TPU
  by default, on any machine).
* :func:`check_inputs` / :func:`fix_inputs` - E0102 (and JAX's own layout
  ``ValueError``) before calling a compiled executable.
* :func:`check_checkpoint` / :func:`relayout_checkpoint` - which restored leaves a
  compiled step function will reject, and the same leaves moved to its formats.
* :func:`compile_jitted` - the real TPU compiler's verdict on a program (``[tpu]`` extra).
* :func:`explain` / :func:`install` - E1200 and E0102 explained under JAX's own error: the
  path, the Python lines and the fix (``%load_ext xladoctor.jax`` in IPython).

See docs/jax.md.
"""

from .quiet_start import start_quietly

start_quietly()  # imports jax and starts it: no GPU/TPU plugin noise on a machine with neither

from .checkpoint import check_checkpoint, relayout_checkpoint  # noqa: E402 (after jax's quiet start)
from .explain_hook import explain, install, load_ipython_extension, uninstall  # noqa: E402
from .inputs_check import InputsReport, LeafMismatch, check_inputs, fix_inputs  # noqa: E402
from .offload_check import OffloadFinding, OffloadReport, check_lowered, check_offload  # noqa: E402
from .offload_confirm import compile_jitted  # noqa: E402
from .source_line import SourceLine  # noqa: E402

__all__ = ["check_offload", "check_lowered", "OffloadReport", "OffloadFinding", "SourceLine",
           "check_inputs", "fix_inputs", "InputsReport", "LeafMismatch",
           "check_checkpoint", "relayout_checkpoint", "compile_jitted", "explain", "install", "uninstall",
           "load_ipython_extension"]
