"""Tests of :mod:`subroc_ext.utils.json_schema`: the package's own check of JSON
against a JSON Schema decides as jsonschema does, and names the key."""

import pytest

from subroc_ext.utils.json_schema import first_error, key_path

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = {
    "type": "object",
    "required": ["version", "items"],
    "properties": {
        "version": {"const": 1},
        "level": {"type": ["number", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "count": {"type": "integer", "minimum": 0},
        "mode": {"enum": ["worse", "better"]},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "minItems": 2,
                 "maxItems": 2},
        "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    },
    "additionalProperties": False,
    "$defs": {
        "item": {
            "type": "object", "required": ["op"],
            "properties": {"op": {"enum": ["<", "missing"]}, "value": {"oneOf": [{"type": "number"},
                                                                               {"type": "string"}]}},
            "if": {"properties": {"op": {"const": "missing"}}},
            "then": {"not": {"required": ["value"]}}, "else": {"required": ["value"]},
        },
    },
}  # fmt: skip

CASES = [
    ({"version": 1, "items": []}, None),
    ({"version": 1.0, "items": [], "count": 3.0, "level": None}, None),
    ({"version": True, "items": []}, "version: expected 1, got true"),
    ({"version": 1, "items": [], "level": 1}, "level: 1 is not in (0, 1)"),
    ({"version": 1, "items": [], "count": -1}, "count: -1 is not at least 0"),
    ({"version": 1, "items": [], "count": 1.5}, "count: expected an integer, got 1.5"),
    ({"version": 1, "items": [], "count": False}, "count: expected an integer, got false"),
    ({"version": 1, "items": [], "mode": "both"}, "mode: expected one of 'worse', 'better', got 'both'"),
    ({"version": 1, "items": [], "pair": ["a", "b"]}, "pair[1]: expected a number, got 'b'"),
    ({"version": 1, "items": [], "pair": ["a"]}, "pair: has 1 item(s), not 2"),
    ({"version": 1, "items": [], "other": 0}, "other: is not a key of the document"),
    ({"items": []}, "version: is missing"),
    ({"version": 1, "items": [{"op": "<"}]}, "items[0].value: is missing"),
    ({"version": 1, "items": [{"op": "missing", "value": 1}]}, "items[0]: must not have the key 'value'"),
    ({"version": 1, "items": [{"op": "<", "value": [1]}]}, "items[0].value: an array of 1 item(s) is not of a form"),
]  # fmt: skip


@pytest.mark.parametrize("document, expected", CASES)
def test_decides_as_jsonschema_and_names_the_key(document, expected):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    valid = jsonschema.Draft202012Validator(SCHEMA).is_valid(document)
    error = first_error(document, SCHEMA)
    assert (error is None) == valid == (expected is None)
    if expected is not None:
        path, problem = error
        assert f"{key_path(path)}: {problem}".startswith(expected)


def test_numbers_json_cannot_hold_are_refused():
    assert first_error(float("nan"), {"type": "number"}) == ((), "expected a number, got NaN")
    assert first_error(float("inf"), {"type": ["number", "null"]}) == ((), "expected a number or null, got Infinity")
