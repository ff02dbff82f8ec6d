"""XLA's error catalogue as data: one TOML file per code, in English and Persian.

The catalogue is the single place that knows what each code means (like
``rustc --explain``): :func:`load_catalogue` reads ``data/*.toml``, the scanner
in :mod:`xladoctor.catalogue.scanner` uses each entry's patterns to find the
error in arbitrary logs.
"""

from .loader import Catalogue, load_catalogue, normalize_code
from .model import LANGUAGES, Entry, EntryText

__all__ = ["Catalogue", "Entry", "EntryText", "LANGUAGES", "load_catalogue", "normalize_code"]
