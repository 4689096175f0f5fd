"""`crag ingest URL…` against a real site on 127.0.0.1: pages indexed under their URL and
cited by it, re-fetched only on --refresh, a size limit, a polite same-site crawl (robots.txt,
one request at a time, a page cap), and removal by URL. The SSRF guard blocks loopback, so
these settings allow private addresses (web.allow_private_addresses), as the web tests do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.servers.site import serve_site

from crag.config import Settings, load_settings
from crag.index.filters import parse_filter
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.ingest.urls import UrlOptions, ingest_urls
from crag.models.embedder import Embedder

pytestmark = pytest.mark.slow


def _page(title: str, body: str, links: str = "") -> str:
    return (
        f"<html><head><title>{title}</title></head><body><nav>{links}</nav>"
        f"<article><h1>{title}</h1><p>{body}</p></article></body></html>"
    )


PAGES = {
    "/": _page(
        "Lighthouse keepers",
        "The Quillmere lighthouse was kept by the Arden family for three generations, "
        "and its lamp was first lit in 1871 after a winter of storms on the coast.",
        '<a href="/lamps.html">lamps</a> <a href="/private/log.html">log</a> '
        '<a href="OTHER/elsewhere.html">elsewhere</a> <a href="/photo.jpg">photo</a>',
    ),
    "/lamps.html": _page(
        "Lamps",
        "Fresnel lenses focus the lamp of a lighthouse into a beam seen twenty miles at sea; "
        "the Quillmere lens was ground in Paris.",
        '<a href="/deep.html">deeper</a>',
    ),
    "/deep.html": _page("Deep", "A page two links from the start, beyond a crawl of depth 1."),
    "/private/log.html": _page("Log", "Private keeper's log that robots.txt disallows."),
    "/robots.txt": "User-agent: *\nDisallow: /private/\n",
    "/notes.txt": "Plain text notes: the fog signal sounds every thirty seconds.",
    "/big.html": _page("Big", "word " * 20_000),
}


@pytest.fixture
def settings(tmp_path) -> Settings:
    s = load_settings(data_dir=tmp_path / "data", collection="urls")
    s.web.allow_private_addresses = True  # the site is on loopback
    return s


@pytest.fixture
def index(settings: Settings, embedder: Embedder) -> Iterator[Index]:
    idx = Index.open(settings, embedder=embedder)
    yield idx
    idx.close()


@pytest.fixture
def site() -> Iterator:
    with serve_site(dict(PAGES)) as other, serve_site(dict(PAGES), latency=0.05) as server:
        server.state["pages"]["/"] = PAGES["/"].replace("OTHER", other.url)
        server.state["other"] = other
        yield server


def test_pages_are_indexed_under_their_url_and_refetched_only_on_refresh(site, index, settings):
    urls = [site.url + "/", site.url + "/notes.txt"]
    report = ingest_urls(Ingestor(index), urls, settings.web, UrlOptions(delay=0))
    assert report.ok and sorted(report.added) == sorted(urls)
    hit = HybridRetriever(index).search("Who kept the Quillmere lighthouse?", 1)[0]
    assert hit.chunk.source == site.url + "/" and hit.chunk.url == site.url + "/"
    assert hit.chunk.cite().startswith(site.url + "/")
    assert hit.chunk.metadata["type"] == "html" and hit.chunk.metadata["site"] == "127.0.0.1"
    notes = HybridRetriever(index).search("fog signal", 1, where=parse_filter("type=txt"))
    assert notes and notes[0].chunk.source.endswith("/notes.txt")

    before = len(site.state["log"])
    again = ingest_urls(Ingestor(index), urls, settings.web, UrlOptions(delay=0))
    assert sorted(again.unchanged) == sorted(urls) and len(site.state["log"]) == before

    site.state["pages"]["/notes.txt"] = "Plain text notes: the fog signal now sounds every minute."
    fresh = ingest_urls(Ingestor(index), urls, settings.web, UrlOptions(refresh=True, delay=0))
    assert fresh.unchanged == [site.url + "/"] and fresh.updated == [site.url + "/notes.txt"]
    assert "minute" in index.catalog.chunks_of(site.url + "/notes.txt")[0].text

    removed = Ingestor(index).remove([site.url + "/notes.txt"])
    assert removed.removed == [site.url + "/notes.txt"]


def test_size_limit_and_bad_urls_are_reported(site, index, settings):
    urls = [site.url + "/big.html", site.url + "/missing.html", site.url + "/lamps.html"]
    report = ingest_urls(Ingestor(index), urls, settings.web, UrlOptions(delay=0, max_bytes=20_000))
    failed = dict(report.failed)
    assert "size limit (20000 bytes)" in failed[site.url + "/big.html"]
    assert "HTTP 404" in failed[site.url + "/missing.html"]
    assert report.added == [site.url + "/lamps.html"]  # the rest continue


def test_guard_blocks_loopback_by_default(site, index, settings):
    settings.web.allow_private_addresses = False
    report = ingest_urls(Ingestor(index), [site.url + "/"], settings.web, UrlOptions(delay=0))
    assert "internal address" in dict(report.failed)[site.url + "/"]
    assert index.count() == 0


def test_polite_same_site_crawl(site, index, settings):
    options = UrlOptions(depth=1, delay=0.05, max_pages=10)
    report = ingest_urls(Ingestor(index), [site.url + "/"], settings.web, options)
    assert sorted(report.added) == [site.url + "/", site.url + "/lamps.html"]
    log = list(site.state["log"])
    assert log[0] == "/robots.txt" and "/private/log.html" not in log  # robots obeyed
    assert "/deep.html" not in log and "/photo.jpg" not in log  # depth 1; not a page
    assert site.state["other"].state["log"] == []  # same site only
    assert site.state["max_active"] == 1  # one request at a time

    capped = ingest_urls(
        Ingestor(index), [site.url + "/"], settings.web,
        UrlOptions(depth=3, delay=0, max_pages=2, refresh=True),
    )  # fmt: skip
    fetched = [p for p in site.state["log"][len(log) :] if p != "/robots.txt"]
    assert len(fetched) == 2 and not capped.failed


def test_documents_api_ingests_urls(site, settings):
    import time

    import httpx
    from tests.servers.serving import serving

    from crag.server import create_app

    settings.server.warmup = False
    with serving(create_app(settings, api_keys=[])) as url, httpx.Client(base_url=url) as c:
        bad = c.post("/v1/documents/urls", json={"urls": ["file:///etc/passwd"]})
        assert bad.status_code == 400 and "urls[0]" in bad.json()["detail"]
        body = {"urls": [site.url + "/lamps.html"], "tags": {"team": "ops"}}
        r = c.post("/v1/documents/urls", json=body)
        assert r.status_code == 202, r.text
        job = r.json()
        assert job["files"] == [{"source": site.url + "/lamps.html", "filename": body["urls"][0]}]
        deadline = time.monotonic() + 60
        while job["state"] not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.2)
            job = c.get(f"/v1/documents/jobs/{job['id']}").json()
        assert job["state"] == "done", job
        assert job["result"]["added"] == [site.url + "/lamps.html"]
        listed = c.get("/v1/documents").json()["sources"]
        assert [s["source"] for s in listed] == [site.url + "/lamps.html"]
        found = c.post("/v1/search", json={"query": "Fresnel", "where": ["team=ops"]}).json()
        assert found["hits"][0]["chunk"]["url"] == site.url + "/lamps.html"
