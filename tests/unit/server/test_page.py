"""The web page's files: served from the package with a strict content security policy, no
file outside the three assets, and nothing fetched from another origin."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from crag.server.routes import page


def _client() -> TestClient:
    app = FastAPI()
    app.include_router(page.router)
    return TestClient(app)


def test_the_page_and_its_assets_are_served_with_a_strict_policy() -> None:
    client = _client()
    html = client.get("/")
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    policy = html.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert 'src="static/app.js"' in html.text and 'href="static/app.css"' in html.text
    js = client.get("/static/app.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert client.get("/static/app.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/index.html").status_code == 404
    assert client.get("/static/..%2Fapp.py").status_code == 404


def test_no_asset_reaches_another_origin_or_writes_html() -> None:
    for name in ("index.html", "app.js", "app.css"):
        text = (page.STATIC / name).read_text(encoding="utf-8")
        assert not re.search(r"https?://", text), name  # no CDN, no remote font
    js = (page.STATIC / "app.js").read_text(encoding="utf-8")
    assert "innerHTML" not in js and "insertAdjacentHTML" not in js and "eval(" not in js


def test_the_mode_list_comes_from_mode() -> None:
    from crag.modes import Mode

    html = _client().get("/").text
    values = re.findall(r'<option value="([^"]+)">', html)
    assert values == [str(m) for m in Mode]  # crag first: the default
    assert "<!-- modes" not in html
    for mode in Mode:  # the page's own file never spells a mode name
        assert f'value="{mode}"' not in (page.STATIC / "index.html").read_text(encoding="utf-8")
