"""``api_version=API_VERSION_UNSPECIFIED`` made compilable: what ``--confirm`` sends jaxlib.

torch_xla (2.9) prints ``api_version=API_VERSION_UNSPECIFIED`` on every custom call of its HLO
text (``_get_xla_tensors_hlo``, ``XLA_SAVE_TENSORS_FILE``, ``--xla_dump_to``).  XLA's HLO parser
reads the name and then refuses it ("Invalid API version: API_VERSION_UNSPECIFIED", measured with
jaxlib 0.10.2), so the real compiler never sees such a text; xladoctor's parser reads it (the
analyses need no API version).  ``--confirm`` compiles the text with each such attribute written
as ``API_VERSION_ORIGINAL``, the value XLA gives a custom call that names none (its printer then
leaves the attribute out), and says so in its document (``normalised``).  The placement calls
torch_xla writes (``annotate_device_placement``) are removed by XLA before code generation, so
the version never reaches a kernel.

A StableHLO module is compiled as given: jaxlib reads ``api_version = 0 : i32``
(``API_VERSION_UNSPECIFIED``, which JAX never writes) and makes it the HLO attribute its own text
parser refuses; libtpu then compiles a placement call carrying it, and XLA:CPU refuses a kernel call
("Unknown custom-call API version enum value: 0 (API_VERSION_UNSPECIFIED)"), both measured with
jaxlib 0.10.2.  Nothing is changed there: ``--confirm`` says so beside the verdict
(:func:`unspecified_in_stablehlo`, the document's ``warning``).
"""

from __future__ import annotations

import re

UNSPECIFIED = re.compile(r"(?<![\w.])api_version=(?i:API_VERSION_UNSPECIFIED)(?![\w.])")
"""The attribute as jaxlib's parser reads it: the enum name in any case (it upper-cases)."""
REPLACEMENT = "api_version=API_VERSION_ORIGINAL"


STABLEHLO_UNSPECIFIED = re.compile(r"(?<![\w.])api_version\s*=\s*(?:0\s*:\s*i32\b|#\w+<api_version\s+API_VERSION_UNSPECIFIED>)")
"""``api_version = 0 : i32`` as StableHLO prints it (and MHLO's enum spelling of the same value)."""


def unspecified_in_stablehlo(text: str) -> int:
    """How many custom calls of a StableHLO module name ``API_VERSION_UNSPECIFIED`` (0)."""
    if "api_version" not in text:
        return 0
    return len(STABLEHLO_UNSPECIFIED.findall(text))


def normalise_api_version(text: str) -> tuple[str, int]:
    """``text`` with each ``api_version=API_VERSION_UNSPECIFIED`` written as XLA's default, and how
    many were.  A text without one is returned as it is (the same object)."""
    if "api_version=" not in text:
        return text, 0
    return UNSPECIFIED.subn(REPLACEMENT, text)
