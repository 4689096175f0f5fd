"""Property-based tests (Hypothesis) for SSE framing: whatever the data, one event is one
block ending in a blank line, every line of it a field, and a client's parse gives the data
back (JSON round trip for objects, the string with its line breaks as "\\n" for strings)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from crag.server.sse import event

FAST = settings(max_examples=100, deadline=None, database=None)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def parse(raw: bytes) -> tuple[str | None, str]:
    """What an EventSource client sees: (event name, data lines joined by "\\n")."""
    text = raw.decode()
    assert text.endswith("\n\n") and "\n\n" not in text[:-2]
    name, data = None, []
    for line in text[:-2].split("\n"):
        assert "\r" not in line
        field, _, value = line.partition(": ")
        assert field in ("event", "data"), line
        if field == "event":
            name = value
        else:
            data.append(value)
    return name, "\n".join(data)


@FAST
@given(
    name=st.sampled_from([None, "token", "node", "answer"]),
    data=st.lists(JSON, max_size=4) | st.dictionaries(st.text(max_size=8), JSON, max_size=4),
)
def test_json_data_round_trips(name: str | None, data: object) -> None:
    got_name, got = parse(event(name, data))
    assert got_name == name and json.loads(got) == data


@FAST
@given(text=st.text(max_size=200))
def test_string_data_cannot_break_the_frame(text: str) -> None:
    _, got = parse(event("error", text))
    assert got == text.replace("\r\n", "\n").replace("\r", "\n")
