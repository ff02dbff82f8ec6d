"""From a user's input to its Report: one route per input kind, one options object (issue 37).

The layer between the analyses and the commands; every route takes ``route.options.Options``.
:mod:`.dispatch` picks the route of one input from its first bytes; one module per kind:

* :mod:`.hlo_text`: an HLO module's text, with its StableHLO companion when there is one
  (:mod:`xladoctor.syntax.companion`), its memory kinds decided by :mod:`.memory_kinds`;
* :mod:`.tensors`: a PyTorch/XLA tensors file, each graph as the module it holds;
* :mod:`.log`: a log, plain or compressed, a file or a stream (:mod:`.log_report`: the same
  scan from Python, ``xladoctor.explain_log``);
* :mod:`.executable_inputs`: an executable's inputs against the buffers supplied (``inputs``);
* :mod:`.folder`: many of these (a folder walked, files named), in a process pool (``-j``),
  what is kept of each in :mod:`.folder_results`; :mod:`.fleet`: many jobs, locally or on Dask.

Every route returns a :class:`~xladoctor.findings.model.Report` (its findings, its inputs and
input errors, its typed details); the JSON documents are drawn from it once, in ``report/``
(``check_json``, ``offload_json``, ``inputs_json``).  What every HLO route shares:
:mod:`.module_analysis` (one module analysed) and :mod:`.fix` (``--fix``: a Report's fix applied
to the text as written, parsed back, analysed again).  A JAX function or executable takes the
same analysis from ``xladoctor.jax`` (the front that lowers it).
"""
