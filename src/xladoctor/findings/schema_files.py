"""The JSON Schema files (draft 2020-12) of every command document, as installed package data.

Readers need no xladoctor code to check a document: the files are plain JSON Schema, linked by
``$ref`` through their ``$id`` (``https://xladoctor.invalid/schema/NAME.schema.json``; the
``.invalid`` host says they are never fetched).  :func:`schemas` gives them all, keyed by
``$id``, for a validator's registry (tests use ``jsonschema`` with ``referencing``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: every --json run names its schema (issue 36, start-up)
if TYPE_CHECKING:
    from typing import Any

SCHEMA_NAMES = ("findings", "confirm", "check", "offload", "explain", "explain_code", "explain_list", "inputs",
                "shape", "hlo", "relayout", "fleet", "jax_offload", "jax_inputs")
"""``findings`` is the ``diagnostics`` document and ``confirm`` the ``--confirm`` object (parts of
documents); ``jax_*`` are ``xladoctor.jax``'s reports' ``to_json()``; the others are the commands'
``--json`` documents."""

COMMAND_SCHEMAS = {"check": ("check",), "shape": ("shape",), "hlo": ("hlo",), "explain": ("explain", "explain_code", "explain_list"),
                   "offload": ("offload",), "fleet": ("fleet",), "inputs": ("inputs",), "relayout": ("relayout",)}
"""Each command's ``--json`` documents (``explain``: a log scan, a code's entry and the list of codes); a test keeps it
equal to the commands that have ``--json``.  ``--format sarif`` follows the official SARIF 2.1.0 schema."""

OFFLOAD_SCHEMA_VERSION = 2
"""Version 2: the analysis internals (``walks``, ``vlog``, ``errors``, ``outcome``, ...) moved under
``details``; the top level is what a user or CI reads (docs/json.md).  ``xladoctor.jax``'s
HTML page is fed the same document."""

CHECK_SCHEMA_VERSION = 3
"""Version 3: each module's ``offload`` is the version-2 ``offload`` document; log entries still
embed the ``explain FILE`` document of its own version (``SCAN_SCHEMA_VERSION``, 2)."""

FLEET_SCHEMA_VERSION = 2
"""Version 2: ``logged`` (error messages the logs hold) and ``predicted`` (E1200s the analysis
predicts from HLO modules, in no log) beside ``findings``, their sum, at the top and per code."""

SCHEMA_BASE = "https://xladoctor.invalid/schema/"


def schema_id(name: str) -> str:
    """The ``$id`` of a schema, which its documents name in their ``$schema`` key (no file is read:
    every command names its schema, and start-up time matters)."""
    return f"{SCHEMA_BASE}{name}.schema.json"


_READ: dict[str, dict[str, Any]] = {}  # not functools.cache: every --json run imports this module (start-up)


def schema(name: str) -> dict[str, Any]:
    """One schema file, parsed (``name`` from :data:`SCHEMA_NAMES`), read once per process."""
    if name not in _READ:
        _READ[name] = _read_schema(name)
    return _READ[name]


def _read_schema(name: str) -> dict[str, Any]:
    if name not in SCHEMA_NAMES:
        raise ValueError(f"no schema named {name!r} (have {', '.join(SCHEMA_NAMES)})")
    import json  # here too: schema_id, on every --json path, needs no JSON reader
    from importlib import resources  # only where a file is read: schema_id is on every --json path

    text = (resources.files("xladoctor") / "findings" / "schema" / f"{name}.schema.json").read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


def schemas() -> dict[str, dict[str, Any]]:
    """Every schema keyed by its ``$id``."""
    return {schema(n)["$id"]: schema(n) for n in SCHEMA_NAMES}
