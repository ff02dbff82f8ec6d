"""xladoctor: find, explain and fix XLA errors (E1200 host-offload output mismatch, E0102
program input mismatch, and the rest of XLA's error catalogue).

The core reads XLA's own text formats exactly: :func:`parse_shape` for shape/layout
notation and :func:`parse_module` for HLO module text.
"""

TYPE_CHECKING = False  # not typing's: importing typing costs more than a bare interpreter start
if TYPE_CHECKING:
    from .base.errors import HloParseError, InputError, XlaDoctorError

__version__ = "0.1.0"

__all__ = ["HloParseError", "InputError", "XlaDoctorError", "__version__", "parse_shape", "parse_module",
           "explain_log"]


def __getattr__(name: str):
    # Lazy re-exports keep `import xladoctor` cheap for the CLI's start-up (`--version` imports
    # nothing else, not even the errors' `re`).
    if name in ("HloParseError", "InputError", "XlaDoctorError"):
        from .base import errors
        return getattr(errors, name)
    if name == "parse_shape":
        from .syntax.shape_parser import parse_shape
        return parse_shape
    if name == "parse_module":
        from .syntax.hlo_parser import parse_module
        return parse_module
    if name == "explain_log":
        from .route.log_report import explain_log
        return explain_log
    raise AttributeError(name)
