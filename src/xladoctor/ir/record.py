"""Mutable records with named fields, as ``@dataclass`` (not frozen) makes them, without dataclasses.

A run's records (a module's source tables, the offload result, a module's provenance and check) are
:class:`MutableValue`'s; :mod:`.value` has the frozen ones.  Kept apart from it so that ``xladoctor
shape``, which imports :mod:`.value` for its shapes, does not make this class (start-up, issue 36).
"""

from __future__ import annotations

from .value import FieldsValue


class MutableValue(FieldsValue):
    """A record with named fields (``_FIELDS``, in order), compared and printed by them as
    ``@dataclass`` (not frozen) made it: equal to an instance of the same class only, unhashable
    (``__hash__`` None, as a dataclass with ``eq`` and not ``frozen``).  Each class writes its
    ``__init__`` out; its fields are plain attributes.  A class that is copied with changes
    defines its own ``replace`` from :func:`fields_with` (in its own layer: tests/test_route_layers.py)."""

    __slots__ = ()

    __hash__ = None  # type: ignore[assignment]

