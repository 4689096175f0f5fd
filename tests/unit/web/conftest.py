"""The web unit tests' search double: a real HTTP server on 127.0.0.1, one per test."""

from __future__ import annotations

import pytest
from tests.servers.search_double import SearchDouble
from tests.support.web_helpers import KEY, WEB_DOCS


@pytest.fixture
def double():
    with SearchDouble(WEB_DOCS, api_key=KEY, delay=2.0) as server:
        yield server
