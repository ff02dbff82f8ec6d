"""Dataclasses written out: the public findings model, route options and log matches without ``dataclasses``.

``Report``, ``Finding``, ``Hop``, ``Location``, ``Edit``, ``Fix``, ``SourceLine``, route ``Options``
and a log's details (``LogMatch``, ``ExplainedLog``, ``ScannedLog``, ``SkippedInput``) are public
API and were ``@dataclass(frozen=True)`` (``LogMatch``: ``@dataclass``).  Importing ``dataclasses`` pulls
inspect, ast, dis and tokenize (~11 ms) and making each class execs its generated methods
(~0.5 ms a class): ~20% of ``xladoctor offload FILE``'s imports (issue 36, start-up).  A class
made from :class:`FrozenDataclass` (or :class:`MutableDataclass`) writes its ``__init__`` out and gets here what the decorator
generated, so a user's ``dataclasses.replace``/``asdict``/``astuple``/``fields``/``is_dataclass``,
pickle, copy, hash, ``==``, ``repr``, ``match`` and ``FrozenInstanceError`` behave as before
(on Python 3.10 and later: the flags and ``Field`` objects are the running Python's):

* ``__dataclass_fields__`` and ``__dataclass_params__`` are class-level lazy attributes: the first
  read (which only code already calling into ``dataclasses`` makes) imports ``dataclasses`` and
  takes them from a real ``@dataclass`` twin made from the class' annotations and ``__init__``
  defaults, so the ``Field`` objects are exactly the running Python's own; they are then cached on
  the class.
* ``__eq__``/``__hash__`` on the compared fields' tuple, ``__repr__`` on the shown ones (a
  class' own ``__repr__`` stays, as the decorator kept it), ``__match_args__`` (none when
  keyword-only), ``__getstate__``/``__setstate__`` for a class with ``__slots__`` (as
  ``slots=True`` added them), ``__replace__`` (Python 3.13's ``copy.replace``).

The fields are the class' own annotations, in order; a slotted class lists them again in
``__slots__`` (checked when the class is made).  A default is the ``__init__`` parameter's
default; :data:`FACTORY` as a default names a ``default_factory`` given in ``_FACTORIES`` (pairs).
Fields in ``_HIDDEN`` are ``field(compare=False, repr=False)``.
tests/test_plain_dataclass.py compares every class against a real ``@dataclass`` twin.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the point of this module is a start-up without it
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import Field
    from typing import Any, ClassVar, TypeVar

    _D = TypeVar("_D", bound="_Generated")


class _Factory:
    """The default of a field whose value a factory makes (``inspect.signature`` shows it as the
    decorator's own sentinel does)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


FACTORY: Any = _Factory()


class _LazyDataclassAttribute:
    """``__dataclass_fields__`` or ``__dataclass_params__``: made by a real ``@dataclass`` twin on
    first read and cached on the class (absent on a class that declares no fields)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type) -> Any:
        if "_FIELDS" not in owner.__dict__:
            raise AttributeError(self.name)
        twin = _twin(owner)
        for name in ("__dataclass_fields__", "__dataclass_params__"):
            setattr(owner, name, getattr(twin, name))
        return getattr(owner, self.name)


def _defaults(cls: type) -> dict[str, Any]:
    """The ``__init__`` parameters' defaults by name."""
    init = cls.__dict__["__init__"]
    code = init.__code__
    positional = code.co_varnames[1:code.co_argcount]
    out = dict(zip(positional[len(positional) - len(init.__defaults__ or ()):], init.__defaults__ or ()))
    out.update(init.__kwdefaults__ or {})
    return out


def _twin(cls: type) -> type:
    """A real dataclass with ``cls``' fields, defaults and flags."""
    import dataclasses

    defaults = _defaults(cls)
    specs: list[tuple[str, Any, Any]] = []
    for name in cls._FIELDS:  # type: ignore[attr-defined]
        hidden = name in cls._HIDDEN  # type: ignore[attr-defined]
        options: dict[str, Any] = {"compare": False, "repr": False} if hidden else {}
        if defaults.get(name, dataclasses.MISSING) is FACTORY:
            options["default_factory"] = dict(cls._FACTORIES)[name]  # type: ignore[attr-defined]
        elif name in defaults:
            options["default"] = defaults[name]
        specs.append((name, cls.__annotations__[name], dataclasses.field(**options)))
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=cls._FROZEN,  # type: ignore[attr-defined]
                                      kw_only=cls._KW_ONLY, slots="__slots__" in cls.__dict__)  # type: ignore[attr-defined]


def _frozen_error(message: str) -> AttributeError:
    from dataclasses import FrozenInstanceError  # the error path alone imports it

    return FrozenInstanceError(message)


class _Generated:
    """What ``@dataclass`` generated for both kinds: the fields (the class' own annotations, in
    order), ``__eq__`` on the compared ones, ``__repr__`` on the shown ones, ``__match_args__``
    (none when ``kw_only=True`` in the class statement) and the lazy ``__dataclass_fields__`` and
    ``__dataclass_params__``."""

    __slots__ = ()
    _FIELDS: tuple[str, ...]  # these three are each subclass' (the base has no fields: not a dataclass)
    _COMPARED: tuple[str, ...]
    _SHOWN: tuple[str, ...]
    _HIDDEN: frozenset[str] = frozenset()
    _FACTORIES: tuple[tuple[str, Callable[[], Any]], ...] = ()
    _KW_ONLY = False
    _FROZEN = False
    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
        __dataclass_params__: ClassVar[Any]
    else:
        __dataclass_fields__ = _LazyDataclassAttribute("__dataclass_fields__")
        __dataclass_params__ = _LazyDataclassAttribute("__dataclass_params__")

    def __init_subclass__(cls, kw_only: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__ == __name__:  # FrozenDataclass, MutableDataclass: no fields, not dataclasses
            return
        names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063 (inspect is what this avoids)
        slots = cls.__dict__.get("__slots__")
        if slots is not None and tuple(slots) != names:
            raise TypeError(f"{cls.__name__}.__slots__ {slots!r} are not its fields {names!r}")
        cls._FIELDS = names
        cls._COMPARED = tuple(n for n in names if n not in cls._HIDDEN)
        cls._SHOWN = cls._COMPARED
        cls._KW_ONLY = kw_only
        setattr(cls, "__match_args__", () if kw_only else names)  # noqa: B010 (not declared: the class' own)
        if slots is not None and cls._FROZEN:  # as slots=True added them for a frozen class (its __setattr__ refuses)
            setattr(cls, "__getstate__", _getstate)  # noqa: B010
            setattr(cls, "__setstate__", _setstate)  # noqa: B010

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in self._COMPARED) == tuple(getattr(other, n) for n in self._COMPARED)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._SHOWN)
        return f"{self.__class__.__qualname__}({shown})"

    def __replace__(self: _D, /, **changes: Any) -> _D:
        """Python 3.13's ``copy.replace``: ``dataclasses.replace``, as the decorator's was."""
        from dataclasses import replace

        return replace(self, **changes)


def _getstate(self: _Generated) -> list[Any]:
    return [getattr(self, name) for name in self._FIELDS]


def _setstate(self: _Generated, state: list[Any]) -> None:
    for name, value in zip(self._FIELDS, state):
        object.__setattr__(self, name, value)


class FrozenDataclass(_Generated):
    """What ``@dataclass(frozen=True)`` generated, for a class that writes its ``__init__`` out
    (through ``object.__setattr__``, as the decorator's did): also ``__hash__`` on the compared
    fields and ``FrozenInstanceError`` on assignment.  Every assignment raises, as the decorator's
    did on the class itself (no class subclasses one of these; a subclass of a frozen dataclass
    could set attributes that are not fields)."""

    __slots__ = ()
    _FROZEN = True

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in self._COMPARED))

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen_error(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise _frozen_error(f"cannot delete field {name!r}")


class MutableDataclass(_Generated):
    """What ``@dataclass`` (not frozen) generated, for a class that writes its ``__init__`` out:
    its fields are plain attributes; unhashable (``__hash__`` None, as with ``eq`` and not ``frozen``)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]


def fields_with(value: _Generated, changes: dict[str, Any]) -> dict[str, Any]:
    """``value``'s fields by name with ``changes`` over them: ``type(value)(**fields_with(value, ...))``
    is ``dataclasses.replace(value, ...)`` without importing dataclasses.  The copy is made by the
    caller, in its own layer: base calls no class of a layer above (tests/test_route_layers.py).  An
    unknown name is refused by the class' ``__init__``, as in ``dataclasses.replace``."""
    values = {name: getattr(value, name) for name in value._FIELDS}
    values.update(changes)
    return values
