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
"""

from __future__ import annotations

import re

UNSPECIFIED = re.compile(r"(?<![\w.])api_version=(?i:API_VERSION_UNSPECIFIED)(?![\w.])")
"""The attribute as jaxlib's parser reads it: the enum name in any case (it upper-cases)."""
REPLACEMENT = "api_version=API_VERSION_ORIGINAL"


def normalise_api_version(text: str) -> tuple[str, int]:
    """``text`` with each ``api_version=API_VERSION_UNSPECIFIED`` written as XLA's default, and how
    many were.  A text without one is returned as it is (the same object)."""
    if "api_version=" not in text:
        return text, 0
    return UNSPECIFIED.subn(REPLACEMENT, text)
