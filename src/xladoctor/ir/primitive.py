"""XLA's primitive types (``xla_data.proto`` PrimitiveType) and their bit widths.

Widths follow ``primitive_util``: integers count value bits plus sign, ``pred`` is
1 bit, floats and complex use their native size, MX types (``f4e2m1fn``,
``f8e8m0fnu``) their native bit count.  ``byte_width`` is ``ceil(bits / 8)``, so every
sub-byte type takes a whole byte unless a layout packs it with ``E(n)``.
"""

from __future__ import annotations


class PrimitiveType:
    """One XLA element type: its text spelling, proto enum number and bit width.

    A frozen value compared and hashed by its fields, as the ``@dataclass(frozen=True)`` it was;
    written out because ``dataclasses`` costs ``xladoctor shape`` most of its start-up (issue 36).
    The 36 instances are made here once; code compares them with ``is``.
    """

    __slots__ = ("name", "number", "bits", "kind")

    name: str
    """Lowercase spelling as XLA prints it (``bf16``, ``opaque``)."""
    number: int
    """The ``PrimitiveType`` enum value in ``xla_data.proto``."""
    bits: int | None
    """Bit width; ``None`` for tuple, token, opaque and buffer, which have none."""
    kind: str
    """One of ``pred``, ``signed``, ``unsigned``, ``float``, ``complex``, ``other``."""

    def __init__(self, name: str, number: int, bits: int | None, kind: str) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "name", name)
        setattr_(self, "number", number)
        setattr_(self, "bits", bits)
        setattr_(self, "kind", kind)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, PrimitiveType)
        return (self.name, self.number, self.bits, self.kind) == (other.name, other.number, other.bits, other.kind)

    def __hash__(self) -> int:
        return hash((self.name, self.number, self.bits, self.kind))

    def __repr__(self) -> str:
        return f"PrimitiveType(name={self.name!r}, number={self.number!r}, bits={self.bits!r}, kind={self.kind!r})"

    def __reduce__(self) -> tuple[type[PrimitiveType], tuple[str, int, int | None, str]]:
        return PrimitiveType, (self.name, self.number, self.bits, self.kind)

    @property
    def byte_width(self) -> int | None:
        """Bytes one element occupies without an ``E(n)`` layout attribute."""
        return None if self.bits is None else (self.bits + 7) // 8

    @property
    def is_array_type(self) -> bool:
        return self.bits is not None

    @property
    def is_integral(self) -> bool:
        return self.kind in ("signed", "unsigned")

    @property
    def is_sub_byte(self) -> bool:
        """XLA's IsSubByteNonPredType: packable with ``E(bits)``."""
        return self.kind != "pred" and self.bits is not None and self.bits < 8

    def __str__(self) -> str:
        return self.name


_TABLE = [
    ("pred", 1, 1, "pred"),
    ("s1", 30, 1, "signed"), ("s2", 26, 2, "signed"), ("s4", 21, 4, "signed"),
    ("s8", 2, 8, "signed"), ("s16", 3, 16, "signed"), ("s32", 4, 32, "signed"),
    ("s64", 5, 64, "signed"),
    ("u1", 31, 1, "unsigned"), ("u2", 27, 2, "unsigned"), ("u4", 22, 4, "unsigned"),
    ("u8", 6, 8, "unsigned"), ("u16", 7, 16, "unsigned"), ("u32", 8, 32, "unsigned"),
    ("u64", 9, 64, "unsigned"),
    ("f16", 10, 16, "float"), ("bf16", 16, 16, "float"), ("f32", 11, 32, "float"),
    ("f64", 12, 64, "float"),
    ("f8e5m2", 19, 8, "float"), ("f8e4m3", 28, 8, "float"), ("f8e4m3fn", 20, 8, "float"),
    ("f8e4m3b11fnuz", 23, 8, "float"), ("f8e3m4", 29, 8, "float"),
    ("f8e5m2fnuz", 24, 8, "float"), ("f8e4m3fnuz", 25, 8, "float"),
    ("f8e8m0fnu", 33, 8, "float"), ("f4e2m1fn", 32, 4, "float"),
    ("f6e3m2fn", 35, 6, "float"), ("f6e2m3fn", 36, 6, "float"),
    ("c64", 15, 64, "complex"), ("c128", 18, 128, "complex"),
    ("tuple", 13, None, "other"), ("opaque", 14, None, "other"),
    ("token", 17, None, "other"), ("buffer", 34, None, "other"),
]

PRIMITIVE_TYPES: dict[str, PrimitiveType] = {
    name: PrimitiveType(name, number, bits, kind) for name, number, bits, kind in _TABLE
}
"""Every primitive type by its printed name."""

# The parser also accepts the enum spelling of OPAQUE_TYPE.
_ALIASES = {"opaque_type": "opaque"}

# Names that may start an array shape in text ('tuple' and 'buffer' are spelled differently).
ARRAY_TYPE_NAMES = frozenset(n for n in PRIMITIVE_TYPES if n not in ("tuple", "buffer")) | {"opaque_type"}


def primitive_type(name: str) -> PrimitiveType:
    """Look a type up by its text spelling; raises ``KeyError`` for unknown names."""
    return PRIMITIVE_TYPES[_ALIASES.get(name, name)]


PRED = PRIMITIVE_TYPES["pred"]
TUPLE = PRIMITIVE_TYPES["tuple"]
TOKEN = PRIMITIVE_TYPES["token"]
OPAQUE = PRIMITIVE_TYPES["opaque"]
BUFFER = PRIMITIVE_TYPES["buffer"]
