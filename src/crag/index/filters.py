"""Metadata filters applied at query time: `type=pdf`, `year>=2024`, `lang in en,tr`.

One typed record, `Filter` (a conjunction of `Condition`s), parsed once from the command line
or the HTTP request and translated by each backend into its own query language *inside* the
search — SQLite (`sqlite_where`), Chroma (`chroma_where`), PostgreSQL (its own module) — so a
filtered search still returns k hits when k match, instead of filtering a top-k afterwards.

Semantics every backend follows (the conformance tests check them):

- Field names: `source` (alias `path`), `title` and `url` are the chunk's own columns; any other
  name is a key of the chunk's metadata (`type`, `modified`, a JSONL field, an `--tag`).
- Values are typed when parsed: `true`/`false` are booleans, `2024` and `1.5` numbers, an
  ISO date or date-time (`2024-06-01`, `2024-06-01T12:00`, UTC) a number of seconds since the
  epoch (what `modified` holds), anything else a string; quotes (`'2024'`, `"a b"`) force a
  string.
- `=`/`!=`/`in` with a number also match the same number stored as text (`"2024"`), since
  JSONL fields are often numbers written as strings.
- `<`, `<=`, `>`, `>=` need a number (or date): Chroma compares numbers only, so a string
  there is refused when parsed rather than silently matching nothing.
- A chunk without the field never matches `=`, `in` or a comparison; it does match `!=`
  (Chroma's `$ne` semantics, kept by the SQL backends).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, TypeGuard

from crag.errors import CragError

__all__ = [
    "COLUMNS",
    "Condition",
    "Filter",
    "FilterError",
    "Op",
    "Scalar",
    "chroma_key",
    "chroma_where",
    "condition",
    "parse_filter",
    "parse_value",
    "sqlite_where",
]

Op = Literal["=", "!=", "<", "<=", ">", ">=", "in"]
Scalar = str | int | float | bool

# field name -> the chunk column it names (every other field is a metadata key)
COLUMNS: dict[str, str] = {"source": "source", "path": "source", "title": "title", "url": "url"}

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_CONDITION = re.compile(
    r"^\s*(?P<field>[^\s=!<>]+)\s*(?:(?P<op>!=|<=|>=|=|<|>)|\s(?P<in>in)\s)\s*(?P<value>.*?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
_INT = re.compile(r"[+-]?\d{1,18}")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?")
_RANGE = ("<", "<=", ">", ">=")
_OPS = ("=", "!=", "<", "<=", ">", ">=", "in")


class FilterError(CragError):
    """A filter expression that cannot be parsed or typed; the message names it."""


@dataclass(frozen=True, slots=True)
class Condition:
    """`field op value`; for `in`, `value` is a tuple of scalars of one type."""

    field: str
    op: Op
    value: Scalar | tuple[Scalar, ...]

    @property
    def column(self) -> str | None:
        """The chunk column this field names, or None for a metadata key."""
        return COLUMNS.get(self.field)

    def __str__(self) -> str:
        if isinstance(self.value, tuple):
            return f"{self.field} in {','.join(map(str, self.value))}"
        return f"{self.field}{self.op}{self.value}"


@dataclass(frozen=True, slots=True)
class Filter:
    """All conditions must hold (AND). Empty: no filter."""

    conditions: tuple[Condition, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.conditions)

    def __str__(self) -> str:
        return " and ".join(map(str, self.conditions))

    def matches(self, columns: dict[str, Any], metadata: dict[str, Any]) -> bool:
        """Reference semantics in Python (tests check each backend against it)."""
        return all(_holds(c, columns, metadata) for c in self.conditions)


def parse_value(raw: str, *, field: str = "value") -> Scalar:
    """Type one value as the module docstring says."""
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _DATE.fullmatch(text):
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError as exc:
            raise FilterError(f"{field}: {text!r} is not a valid date: {exc}") from exc
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return when.timestamp()
    if not text:
        raise FilterError(f"{field}: empty value")
    return text


def _parse_condition(expr: str) -> Condition:
    m = _CONDITION.match(expr)
    if not m:
        raise FilterError(
            f"filter {expr!r}: expected FIELD OP VALUE with OP one of = != < <= > >= in "
            "(e.g. type=pdf, year>=2024, lang in en,tr)"
        )
    where = f"filter {expr!r}"
    if m.group("in"):
        parts = _split_list(m.group("value"))
        if not parts:
            raise FilterError(f"{where}: `in` needs a comma-separated list")
        values = tuple(parse_value(p, field=where) for p in parts)
        if len({_kind(v) for v in values}) > 1:
            values = tuple(p.strip().strip("'\"") for p in parts)  # mixed: compare as text
        return condition(m.group("field"), "in", values, where=where)
    value = parse_value(m.group("value"), field=where)
    return condition(m.group("field"), m.group("op"), value, where=where)


def condition(field: str, op: str, value: Any, *, where: str = "filter") -> Condition:
    """A checked `Condition` from already typed parts (a JSON request's `{field, op, value}`):
    the field name, the operator and the value's type for it are validated here, so every
    way into a filter obeys the same rules. A string value of a comparison is typed like a
    parsed one (`"2024-06-01"` becomes a date)."""
    if not _FIELD.fullmatch(field):
        raise FilterError(f"{where}: field {field!r} must be letters, digits, _ . - (max 64)")
    if not _is_op(op):
        raise FilterError(f"{where}: operator {op!r}; use one of {' '.join(_OPS)}")
    if op == "in":
        values = tuple(value) if isinstance(value, list | tuple) else (value,)
        if not values or any(not isinstance(v, Scalar) for v in values):
            raise FilterError(f"{where}: `in` needs a non-empty list of strings or numbers")
        if len({_kind(v) for v in values}) > 1:
            raise FilterError(f"{where}: `in` values must all be numbers or all strings")
        return Condition(field, "in", values)
    if isinstance(value, str) and op in _RANGE:
        value = parse_value(value, field=where)
    if not isinstance(value, Scalar):
        raise FilterError(f"{where}: value must be a string, number or boolean")
    if op in _RANGE and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise FilterError(
            f"{where}: {op} compares numbers or dates (YYYY-MM-DD) only, got {value!r}"
        )
    return Condition(field, op, value)


def _is_op(op: str) -> TypeGuard[Op]:
    return op in _OPS


def _split_list(text: str) -> list[str]:
    return [p for p in (s.strip() for s in text.strip().strip("[]()").split(",")) if p]


def _kind(value: Scalar) -> str:
    if isinstance(value, bool):
        return "bool"
    return "number" if isinstance(value, int | float) else "str"


def parse_filter(exprs: Iterable[str] | str | None) -> Filter:
    """Parse `--where` expressions (each one condition; all must hold)."""
    if exprs is None:
        return Filter()
    if isinstance(exprs, str):
        exprs = [exprs]
    return Filter(tuple(_parse_condition(e) for e in exprs if e.strip()))


# -- reference semantics ------------------------------------------------------------------
def _variants(value: Scalar) -> list[Scalar]:
    """A number also matches its text form (`2024` ~ `"2024"`)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return [value]
    text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return [value, text]


def _holds(c: Condition, columns: dict[str, Any], metadata: dict[str, Any]) -> bool:
    have = columns.get(c.column) if c.column else metadata.get(c.field)
    if have is None:
        return c.op == "!="
    wanted = c.value if isinstance(c.value, tuple) else (c.value,)
    equal = any(
        have == v and isinstance(have, bool) == isinstance(v, bool)
        for w in wanted
        for v in _variants(w)
    )
    if c.op == "=" or c.op == "in":
        return equal
    if c.op == "!=":
        return not equal
    if isinstance(have, bool) or not isinstance(have, int | float) or isinstance(c.value, tuple):
        return False  # a range condition holds one number (`condition` checks)
    value = float(c.value)
    return {"<": have < value, "<=": have <= value, ">": have > value, ">=": have >= value}[c.op]


# -- Chroma ---------------------------------------------------------------------------------
def chroma_key(field: str) -> str:
    """Where crag's vector store keeps a field in Chroma metadata (see crag.index.vector)."""
    column = COLUMNS.get(field)
    return column if column else f"m_{field}"


_CHROMA_OPS = {"=": "$eq", "!=": "$ne", "<": "$lt", "<=": "$lte", ">": "$gt", ">=": "$gte"}


def _chroma_condition(c: Condition) -> dict[str, Any]:
    key = chroma_key(c.field)
    if c.op == "in":
        values = list(c.value) if isinstance(c.value, tuple) else [c.value]
        if values and _kind(values[0]) == "number":
            texts = [_variants(v)[1] for v in values]
            return {"$or": [{key: {"$in": values}}, {key: {"$in": texts}}]}
        return {key: {"$in": values}}
    assert not isinstance(c.value, tuple)
    variants = _variants(c.value) if c.op in ("=", "!=") else [c.value]
    parts = [{key: {_CHROMA_OPS[c.op]: v}} for v in variants]
    if len(parts) == 1:
        return parts[0]
    return {"$or": parts} if c.op == "=" else {"$and": parts}


def chroma_where(flt: Filter | None) -> dict[str, Any] | None:
    """The filter as a Chroma `where` clause (None: no filter)."""
    if not flt:
        return None
    parts = [_chroma_condition(c) for c in flt.conditions]
    return parts[0] if len(parts) == 1 else {"$and": parts}


# -- SQLite -----------------------------------------------------------------------------------
def _sql_value(value: Scalar) -> Scalar:
    """SQLite's json_extract gives booleans as 1/0."""
    return int(value) if isinstance(value, bool) else value


def _sqlite_condition(c: Condition, table: str) -> tuple[str, list[Scalar]]:
    if c.column:
        expr = f'{table}."{c.column}"'
        args: list[Scalar] = []
    else:
        expr = f"json_extract({table}.metadata, ?)"
        args = [f'$."{c.field}"']
    wanted: Sequence[Scalar] = c.value if isinstance(c.value, tuple) else (c.value,)
    if c.op in ("=", "!=", "in"):
        values = [_sql_value(v) for w in wanted for v in _variants(w)]
        marks = ",".join("?" * len(values))
        if c.op == "!=":
            return f"({expr} IS NULL OR {expr} NOT IN ({marks}))", args + args + values
        return f"{expr} IN ({marks})", args + values
    # numbers only: a text value (or NULL) never compares
    sql = f"(typeof({expr}) IN ('integer', 'real') AND {expr} {c.op} ?)"
    return sql, args + args + [_sql_value(wanted[0])]


def sqlite_where(flt: Filter | None, table: str = "chunks") -> tuple[str, list[Scalar]]:
    """The filter as an SQL condition on the catalog's `chunks` table (aliased `table`) and its
    parameters; `("1", [])` for no filter."""
    if not flt:
        return "1", []
    parts, args = [], []
    for c in flt.conditions:
        sql, values = _sqlite_condition(c, table)
        parts.append(sql)
        args.extend(values)
    return " AND ".join(parts), args
