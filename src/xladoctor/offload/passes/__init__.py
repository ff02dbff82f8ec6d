"""The passes of :data:`..pipeline.PIPELINE`, one per file, each named after the XLA file it models.

A pass' whole implementation lives in one module here (up to 800 lines, the size guard's
limit for this package), or, where that is not enough, in one sub-package named after the
pass.  Names follow XLA's sources (openxla/xla, the version libtpu 0.0.42.1 carries):

* ``hlo_dce`` (``xla/hlo/transforms/simplifiers/hlo_dce.cc``), ``hlo_cse`` (``hlo_cse.cc``),
  ``call_inliner`` (``xla/hlo/transforms/simplifiers/call_inliner.cc``),
  ``algebraic_simplifier``, ``reshape_mover``, ``conditional_canonicalizer``
  (``xla/hlo/transforms/simplifiers/``), ``conditional_code_motion`` and
  ``while_loop_simplifier`` (``xla/service/``);
* ``hlo_host_device_type_call_wrapper`` (``xla/core/host_offloading/``),
  ``host_offloading_prepare``, ``host_offload_legalize/``, ``host_offloader/`` and the helpers
  they share, ``host_offload_utils`` (``xla/hlo/transforms/host_offload*.cc``);
* libtpu's own passes, by the names its dumps give them: ``scatter_to_dus``,
  ``concat_decomposer``, ``while_initializer_removal``, ``pipelining_optimizations``.

Nothing is imported here: :mod:`..pipeline` imports each pass where it orders it.
"""
