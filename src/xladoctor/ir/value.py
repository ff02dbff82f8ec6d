"""Values with named fields, as ``@dataclass`` and ``@dataclass(frozen=True)`` make them, without dataclasses.

The IR's values (:mod:`.shape`'s Shape, Layout, Tile..., :mod:`.sizes`' results) and the parser's
layout warnings are made from :class:`FrozenValue`; :func:`replace` copies one with changes, as
``dataclasses.replace`` did.  The mutable records of a run (a module's source tables, the offload
result) are :mod:`.record`'s ``MutableValue``'s.

Making a dataclass execs the source of each generated method: ~4.5M instructions (~0.5 ms) per
frozen class, 45 classes on ``xladoctor offload FILE``'s way before h48s, ~25% of its whole process
(cachegrind, issue 36).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `xladoctor shape` imports this module (issue 36, start-up)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _V = TypeVar("_V", bound="FrozenValue")


class FieldsValue:
    """What :class:`FrozenValue` and :class:`.record.MutableValue` share, as the dataclasses did: named
    fields (``_FIELDS``, in order), equality between instances of one class by those fields, and the
    dataclass' ``repr``."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__qualname__}({shown})"


class FrozenValue(FieldsValue):
    """A value with named fields (``_FIELDS``, in order) that cannot be reassigned, compared and
    hashed by its fields, printed and copied (:meth:`replace`) as ``@dataclass(frozen=True)`` did.

    Written out, not generated: ``dataclasses`` imports inspect, ast, dis and tokenize, and making
    the classes execs code, most of what ``xladoctor shape`` imported (issue 36, start-up).  Each
    class sets its fields in ``__init__`` with ``object.__setattr__``, as the dataclass did: storing
    them into ``self.__dict__`` is twice as fast once, but makes the instance's dict by hand, and
    then every read of a field is four times slower (CPython 3.11's inline attribute values).
    Equality is between instances of the same class only, and the hash is that of the fields'
    tuple, as a dataclass' (so sets and dicts of them behave as before).
    """

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def replace(self: _V, **changes: Any) -> _V:
        """A copy with ``changes`` (field names), as ``dataclasses.replace``."""
        return self.__class__(**fields_with(self, changes))


def fields_with(value: FieldsValue, changes: dict[str, Any]) -> dict[str, Any]:
    """``value``'s fields by name with ``changes`` over them: what a copy made by ``replace`` is
    built from (a class of a layer above builds its own copies from it: tests/test_route_layers.py)."""
    values = {name: getattr(value, name) for name in value._FIELDS}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(value).__name__} has no field(s) {sorted(unknown)}")
    values.update(changes)
    return values


def replace(value: _V, /, **changes: Any) -> _V:
    """``value.replace(**changes)``: the IR's values in place of ``dataclasses.replace``."""
    return value.replace(**changes)
