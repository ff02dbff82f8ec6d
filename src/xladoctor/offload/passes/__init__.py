"""The passes :func:`..pipeline.offload_pipeline` runs, one per file, each named after the XLA file it models.

A pass' whole implementation lives in one module here (up to 800 lines, the size guard's
limit for this package), or, where that is not enough, in one sub-package named after the
pass.  A module's name is the base name of XLA's source file (``hlo_dce.cc`` ->
``hlo_dce.py``; XLA has moved these files between ``xla/service/`` and
``xla/hlo/transforms/``, their names stayed):

* simplifiers: ``hlo_dce``, ``hlo_cse`` (and the annotation CSE, HloCSE on placement
  annotations), ``tuple_simplifier``, ``algebraic_simplifier``, ``reshape_mover``,
  ``sharding_remover``, ``conditional_canonicalizer``, ``call_inliner``,
  ``while_loop_simplifier``, ``conditional_code_motion``;
* host offloading: ``hlo_host_device_type_call_wrapper`` (``xla/core/host_offloading/``),
  ``host_offloading_prepare``, ``host_offload_legalize/``, ``host_offloader/`` and the helpers the
  last two share, ``host_offload_utils`` (with ``pass_state``, the state each of their runs has);
* libtpu's own passes, by the names its dumps give them: ``scatter_to_dus``,
  ``concat_decomposer``, ``while_initializer_removal``, ``pipelining_optimizations``; and
  ``stablehlo_rebuild``, the compile's building of HLO from StableHLO;
* what every pass is and what runs them: ``hlo_pass_interface`` (XLA's ``HloPassInterface``:
  ``name``, ``run(module) -> changed``, options given when a pass is made), ``hlo_pass_pipeline``
  (XLA's ``HloPassPipeline``: passes in order, ``changed`` recorded, the IR linted after each when
  asked) and ``analysis_context``, the one typed object a run's passes hand their results on by.

Each pass module defines its pass class (``HloDCE``, ``CallInliner``, ``HostOffloader``...) beside
the functions that do the work.

Nothing is imported here: :mod:`..pipeline` imports each pass where it orders it.
"""
