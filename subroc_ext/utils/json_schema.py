"""JSON checked against a JSON Schema, with one message naming the key at fault.

``jsonschema`` is a test dependency only, so the package checks the JSON it
reads (``findings.json``) itself, against the schema it ships, with the
keywords that schema uses (draft 2020-12): ``type``, ``const``, ``enum``,
``required``, ``properties``, ``additionalProperties``, ``items``,
``prefixItems``, ``minItems``, ``maxItems``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``oneOf``, ``allOf``,
``if``/``then``/``else``, ``not`` and local ``$ref``. Types are JSON's:
``true`` is a boolean, not the number 1 (Python's ``True == 1``), and a
number is finite (``NaN`` and ``Infinity`` are no JSON).

:func:`first_error` gives the first place a value breaks its schema, as
``key 'settings.interval_level': 7 is not in (0, 1)``; keys are written as a
path of names and ``[positions]`` (``findings[0].conditions[1].domain``).
"""

import math

__all__ = ["first_error", "key_path", "shown_json"]

#: The name of each JSON type in a message.
_TYPE_WORDS = {"object": "an object", "array": "an array", "string": "text", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "null"}  # fmt: skip


def key_path(path):
    """A key path (a tuple of names and positions) as text: ``settings.alpha``, ``findings[0].rank``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def shown_json(value, width=60):
    """``value`` as a message shows it: JSON text (``true``, ``null``, ``'east'``), cut to ``width``."""
    if isinstance(value, bool) or value is None:
        text = {True: "true", False: "false", None: "null"}[value]
    elif isinstance(value, float) and not math.isfinite(value):
        text = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    elif isinstance(value, dict):
        text = f"an object with {len(value)} key(s)"
    elif isinstance(value, list):
        text = f"an array of {len(value)} item(s)"
    else:
        text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def _json_type(value):
    """The JSON type of a parsed value (None for what JSON cannot hold, e.g. NaN)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return "integer" if value.is_integer() else "number"
    for kind, word in ((str, "string"), (dict, "object"), (list, "array")):
        if isinstance(value, kind):
            return word
    return None


def _has_type(value, kind):
    found = _json_type(value)
    return found == kind or (kind == "number" and found == "integer")


def _same(a, b):
    """JSON equality: types first (``true`` is not ``1``), numbers by value."""
    if _json_type(a) != _json_type(b) and not {_json_type(a), _json_type(b)} <= {"integer", "number"}:
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


def _range_error(value, schema):
    """Why a number is outside the schema's bounds (None if inside)."""
    low = schema.get("exclusiveMinimum", schema.get("minimum"))
    high = schema.get("exclusiveMaximum", schema.get("maximum"))
    too_low = low is not None and (value <= low if "exclusiveMinimum" in schema else value < low)
    too_high = high is not None and (value >= high if "exclusiveMaximum" in schema else value > high)
    if not (too_low or too_high):
        return None
    if low is not None and high is not None:
        left, right = "(" if "exclusiveMinimum" in schema else "[", ")" if "exclusiveMaximum" in schema else "]"
        return f"{shown_json(value)} is not in {left}{low:g}, {high:g}{right}"
    if low is not None:
        return f"{shown_json(value)} is not {'above' if 'exclusiveMinimum' in schema else 'at least'} {low:g}"
    return f"{shown_json(value)} is not {'below' if 'exclusiveMaximum' in schema else 'at most'} {high:g}"


def _resolved(schema, root):
    """``schema`` with a local ``$ref`` (``#/$defs/name``) followed."""
    while "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def first_error(value, schema, root=None, path=()):
    """The first place ``value`` breaks ``schema``, or None.

    Parameters
    ----------
    value : object
        Parsed JSON (dicts, lists, str, int, float, bool, None).
    schema : dict
        A JSON Schema of the keywords in the module notes.
    root : dict, optional
        The schema ``$ref`` resolves in (default ``schema``).
    path : tuple
        The key path of ``value`` (for the message).

    Returns
    -------
    (tuple, str) or None
        The key path at fault and what is wrong there.

    Examples
    --------
    >>> schema = {"type": "object", "properties": {"level": {"type": "number", "exclusiveMinimum": 0,
    ...                                                       "exclusiveMaximum": 1}}}
    >>> path, problem = first_error({"level": 7}, schema)
    >>> f"key '{key_path(path)}': {problem}"
    "key 'level': 7 is not in (0, 1)"
    >>> first_error({"level": True}, schema)[1]
    'expected a number, got true'
    """
    root = schema if root is None else root
    schema = _resolved(schema, root)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_has_type(value, kind) for kind in kinds):
            expected = " or ".join(_TYPE_WORDS[kind] for kind in kinds)
            return path, f"expected {expected}, got {shown_json(value)}"
    if "const" in schema and not _same(value, schema["const"]):
        return path, f"expected {shown_json(schema['const'])}, got {shown_json(value)}"
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(shown_json(option) for option in schema["enum"])
        return path, f"expected one of {options}, got {shown_json(value)}"
    if _json_type(value) in ("integer", "number"):
        problem = _range_error(value, schema)
        if problem:
            return path, problem
    checks = (_object_error, _array_error, _combined_error)
    for check in checks:
        error = check(value, schema, root, path)
        if error is not None:
            return error
    return None


def _object_error(value, schema, root, path):
    if not isinstance(value, dict):
        return None
    missing = [name for name in schema.get("required", ()) if name not in value]
    if missing:
        return (*path, missing[0]), "is missing"
    properties = schema.get("properties", {})
    for name, item in value.items():
        if name in properties:
            error = first_error(item, properties[name], root, (*path, name))
        elif schema.get("additionalProperties") is False:
            return (*path, name), f"is not a key of {key_path(path) or 'the document'}"
        elif isinstance(schema.get("additionalProperties"), dict):
            error = first_error(item, schema["additionalProperties"], root, (*path, name))
        else:
            error = None
        if error is not None:
            return error
    return None


def _array_error(value, schema, root, path):
    if not isinstance(value, list):
        return None
    if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", math.inf):
        low, high = schema.get("minItems", 0), schema.get("maxItems")
        count = f"{low}" if low == high else f"at least {low}" if high is None else f"{low} to {high}"
        return path, f"has {len(value)} item(s), not {count}"
    prefix = schema.get("prefixItems", [])
    for position, item in enumerate(value):
        item_schema = prefix[position] if position < len(prefix) else schema.get("items")
        error = None if item_schema is None else first_error(item, item_schema, root, (*path, position))
        if error is not None:
            return error
    return None


def _combined_error(value, schema, root, path):
    for part in schema.get("allOf", ()):
        error = first_error(value, part, root, path)
        if error is not None:
            return error
    if "if" in schema:
        branch = schema.get("then") if first_error(value, schema["if"], root, path) is None else schema.get("else")
        error = None if branch is None else first_error(value, branch, root, path)
        if error is not None:
            return error
    if "not" in schema and first_error(value, schema["not"], root, path) is None:
        return path, _not_message(value, _resolved(schema["not"], root))
    if "oneOf" in schema:
        errors = [first_error(value, option, root, path) for option in schema["oneOf"]]
        if errors.count(None) > 1:
            return path, f"{shown_json(value)} fits more than one form"
        if errors.count(None) == 0:
            # the one form of the value's type says best what is wrong
            closer = [(where, problem) for where, problem in errors
                      if problem != "is missing" and (len(where) > len(path) or not problem.startswith("expected "))]
            if len(closer) == 1:
                return closer[0]
            what = schema.get("description") or "of a form the schema allows"
            return path, f"{shown_json(value)} is not {what}"
    return None


def _not_message(value, forbidden):
    """What a ``not`` forbids, in words (the schema says ``{"not": {"required": [...]}}``)."""
    if isinstance(value, dict) and forbidden.get("required"):
        return f"must not have the key {forbidden['required'][0]!r}"
    return f"{shown_json(value)} is not allowed here"
