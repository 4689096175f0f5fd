"""Property-based tests (Hypothesis) for settings parsing: any value given for a setting
through the environment either validates (and reads back as given) or is refused with a
`ConfigError` naming the field, never another exception."""

from __future__ import annotations

import codecs
import os
from contextlib import contextmanager

from hypothesis import given, settings
from hypothesis import strategies as st

from crag.config import load_settings
from crag.errors import ConfigError

FAST = settings(max_examples=30, deadline=None, database=None)
ENV_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\x00", exclude_categories=("Cs",)),
    max_size=20,
)


@contextmanager
def env(**values: str):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


@FAST
@given(value=st.one_of(ENV_TEXT, st.integers(-5, 10_000).map(str)))
def test_an_integer_setting_validates_or_names_the_field(value: str) -> None:
    with env(CRAG_SERVER__MAX_JOBS=value):
        try:
            s = load_settings()
        except ConfigError as exc:
            assert "max_jobs" in str(exc)
        else:
            assert s.server.max_jobs == int(value) >= 1


@FAST
@given(value=st.one_of(ENV_TEXT, st.floats(-10, 1e6, allow_nan=False).map(repr)))
def test_a_float_setting_validates_or_names_the_field(value: str) -> None:
    with env(CRAG_INGEST__MAX_FILE_MB=value):
        try:
            s = load_settings()
        except ConfigError as exc:
            assert "max_file_mb" in str(exc)
        else:
            assert s.ingest.max_file_mb > 0


@FAST
@given(value=st.one_of(ENV_TEXT, st.sampled_from(["latin-1", "cp1254", "UTF8", "utf_16"])))
def test_ingest_encoding_is_a_known_codec_or_refused(value: str) -> None:
    with env(CRAG_INGEST__ENCODING=value):
        try:
            s = load_settings()
        except ConfigError as exc:
            assert "encoding" in str(exc)
        else:
            if s.ingest.encoding is not None:
                assert codecs.lookup(s.ingest.encoding).name == s.ingest.encoding
