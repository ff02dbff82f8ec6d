"""XLA's error catalogue as data: one TOML file per code, in English and Persian.

The catalogue is the single place that knows what each code means (like
``rustc --explain``): :func:`load_catalogue` reads ``data/*.toml``, the scanner
in :mod:`xladoctor.catalogue.scanner` uses each entry's patterns to find the
error in arbitrary logs.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .loader import Catalogue, load_catalogue, normalize_code
    from .model import LANGUAGES, Entry, EntryText

__all__ = ["Catalogue", "Entry", "EntryText", "LANGUAGES", "load_catalogue", "normalize_code"]
_FROM = {"Catalogue": "loader", "load_catalogue": "loader", "normalize_code": "loader",
         "LANGUAGES": "model", "Entry": "model", "EntryText": "model"}


def __getattr__(name: str) -> object:
    """The names above, from their modules on first use: importing any module of the package runs
    this one, and a clean log's scan needs neither the loader nor the model (their imports,
    plain_toml's and the label reader's were ~50 system calls of ``explain LOG``, issue 36 item 6)."""
    where = _FROM.get(name)
    if where == "loader":  # imported by name, so the layer check (tests/test_layers.py) sees both
        from . import loader as module
    elif where == "model":
        from . import model as module  # type: ignore[no-redef]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)
