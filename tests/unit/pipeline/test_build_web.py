"""The web corrector built from settings (crag.pipeline.build_web): none by default, the
configured provider otherwise, and no page strip kept below the floor."""

from __future__ import annotations

import pytest
from tests.servers.search_double import SearchDouble
from tests.support.web_helpers import FESTIVAL, KEY, OverlapEvaluator, ReplyLLM

from crag.config import load_settings
from crag.pipeline.build import make_web_corrector
from crag.web import TavilySearch, WebCorrector


@pytest.fixture
def double():
    with SearchDouble([FESTIVAL], api_key=KEY) as server:
        yield server


def test_build_pipeline_default_is_offline_and_web_settings_build_a_corrector(tmp_path) -> None:
    settings = load_settings(data_dir=tmp_path)
    assert settings.web.provider == "none"
    assert make_web_corrector(settings, ReplyLLM(""), OverlapEvaluator(), 0.2) is None
    settings = load_settings(
        data_dir=tmp_path, web={"provider": "searxng", "searxng_url": "http://s"}
    )
    web = make_web_corrector(settings, ReplyLLM(""), OverlapEvaluator(), 0.2)
    assert isinstance(web, WebCorrector) and web.search.name == "searxng"
    assert (tmp_path / "web-cache.sqlite3").exists()


class NoiseLevel:
    """Scores every passage alike: at noise level (0.02) or well above it."""

    name = "noise-level"

    def __init__(self, score: float) -> None:
        self.value = score

    def score(self, question: str, passages: list[str]) -> list[float]:
        return [self.value for _ in passages]


def test_the_built_corrector_keeps_no_page_strip_below_the_floor(double, tmp_path) -> None:
    """Local chunks' best strips survive a noise-level score (their rank is evidence); a
    page's place in the search results is not, so every web strip must reach the floor."""
    settings = load_settings(
        data_dir=tmp_path, web={"provider": "searxng", "allow_private_addresses": True}
    )
    search = TavilySearch(api_key=KEY, base_url=double.url, timeout=1.0)
    question = "Where is the Zorblat Festival held?"
    noise = make_web_corrector(settings, ReplyLLM(""), NoiseLevel(0.02), 0.06, search=search)
    assert noise is not None
    outcome = noise.correct(question)
    assert len(outcome.record.strips) >= 2  # pages were read and scored…
    assert outcome.strips == [] and not any(s.kept for s in outcome.record.strips)  # …none kept
    fine = make_web_corrector(settings, ReplyLLM(""), NoiseLevel(0.5), 0.06, search=search)
    assert fine is not None
    kept = fine.correct(question).strips
    assert kept and all(s.score >= 0.06 for s in kept)
