"""Validating a document against xladoctor's JSON Schema files, as a reader of the documents would.

One validator per schema, built once (the registry of every schema and ``check_schema``, which
costs about nine validations, are the same for every document), shared by the tests that check
what the commands print (test_json_schemas) and that every route gives the same findings
(test_findings_routes).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from xladoctor.findings.schema_files import schema, schemas


@cache
def validator(name: str) -> Any:
    """A validator of the schema ``name`` (draft 2020-12), ``$ref`` resolved through every schema's ``$id``."""
    jsonschema = pytest.importorskip("jsonschema")
    referencing = pytest.importorskip("referencing")
    registry = referencing.Registry().with_resources(
        (uri, referencing.Resource.from_contents(doc)) for uri, doc in schemas().items())
    cls = jsonschema.validators.validator_for(schema(name))
    cls.check_schema(schema(name))
    return cls(schema(name), registry=registry)


def schema_errors(doc: Any, name: str) -> list[str]:
    """Where and why ``doc`` fails the schema ``name``, in document order; empty when it is valid."""
    found = sorted(validator(name).iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in found]
