"""Metadata filters (`crag.index.filters.Filter`) as a PostgreSQL condition on `chunks`.

The condition goes into the same query as the ranking (before LIMIT), for keyword and dense
search alike, so a selective filter still returns k hits when k chunks match. Semantics are the
module docstring of `crag.index.filters` (the conformance tests check them on both backends):
metadata is `jsonb`, so a number, a string and a boolean stay distinct, and `2024` also matches
the text `"2024"`; a range compares numbers only; a chunk without the field matches only `!=`.
"""

from __future__ import annotations

import json
from typing import Any

from psycopg import sql

from crag.index.filters import Condition, Filter, Scalar

__all__ = ["pg_where"]

_RANGE_OPS = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _variants(value: Scalar) -> list[Scalar]:
    """A number also matches its text form (as `crag.index.filters` defines)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return [value]
    text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return [value, text]


def _condition(c: Condition) -> tuple[sql.Composable, list[Any]]:
    wanted = c.value if isinstance(c.value, tuple) else (c.value,)
    values = [v for w in wanted for v in _variants(w)]
    if c.column:
        expr: sql.Composable = sql.Identifier(c.column)
        if c.op in ("=", "!=", "in"):
            texts = [v for v in values if isinstance(v, str)]
            match = sql.SQL("{} = ANY(%s::text[])").format(expr)
            if c.op == "!=":
                return sql.SQL("NOT ({})").format(match), [texts]
            return match, [texts]
        return sql.SQL("false"), []  # text columns never compare as numbers
    key = sql.SQL("(metadata -> %s)")
    if c.op in ("=", "!=", "in"):
        docs = [json.dumps(v) for v in values]
        match = sql.SQL("{} = ANY(%s::jsonb[])").format(key)
        if c.op == "!=":
            return sql.SQL("({key} IS NULL OR NOT {match})").format(key=key, match=match), [
                c.field,
                c.field,
                docs,
            ]
        return match, [c.field, docs]
    number = sql.SQL(
        "CASE WHEN jsonb_typeof(metadata -> %s) = 'number' THEN (metadata ->> %s)::float8 END"
    )
    cond = sql.SQL("{} {} %s").format(number, sql.SQL(_RANGE_OPS[c.op]))
    return cond, [c.field, c.field, float(wanted[0])]  # a range condition holds one value


def pg_where(flt: Filter | None) -> tuple[sql.Composable, list[Any]]:
    """(condition, parameters); `TRUE` and no parameters for no filter."""
    if not flt:
        return sql.SQL("TRUE"), []
    parts: list[sql.Composable] = []
    params: list[Any] = []
    for c in flt.conditions:
        cond, args = _condition(c)
        parts.append(cond)
        params.extend(args)
    return sql.SQL(" AND ").join(parts), params
