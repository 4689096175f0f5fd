"""The web page in a real headless Chromium against a real server with the packaged models:
a streamed, cited answer; a citation's highlighted span; upload by drag and drop (several
files), listed, searchable, deleted; a refusal at 375 px; the key prompt on a keyed server.

One served app is shared by the tests of this module. Screenshots of each state are written
to `CRAG_SCREENSHOTS` (default: a temporary folder, printed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.conftest import SAMPLE
from tests.servers.serving import serving
from tests.support.browser import chromium, screenshot_dir

from crag.config import load_settings
from crag.grading import ActionTrigger
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.pipeline import build_pipeline
from crag.pipeline.nodes import NOTHING_FOUND
from crag.server import create_app

# each test asks one to three questions: about a minute each on two quiet cores, far more on
# a loaded machine, hence the generous bounds
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

QUESTION = "How do honey bees tell their nest mates where flowers are?"
OFF_TOPIC = "What is the boiling point of tungsten?"
KEY = "page-key-" + "k" * 16
ANSWER_S = 900_000  # ms: a question on two shared (and busy) CPU cores
KITE_QUESTION = "Who founded the Zephyr Kite Club?"
ZEPHYR = (
    b"# Zephyr Kite Club\n\nThe Zephyr Kite Club was founded by Mina Oduya in 1994. "
    b"It meets every Thursday evening on Larkspur Hill.\n"
)
UPLOADED = {
    "quillfeather.md": "# Quillfeather Light\n\nThe Quillfeather lighthouse stands on Marrow "
    "Point. Its lamp shines green, and it was first lit in 1887 by keeper Edda Holm.\n",
    "notes.txt": "Shopping list: flour, eggs, and a new kettle for the workshop.\n",
}


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = screenshot_dir(tmp_path_factory.mktemp("screenshots"))
    print(f"\nscreenshots: {folder}")
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def url(tmp_path_factory, embedder, generator_llm) -> Iterator[str]:
    """The sample corpus behind a served app: the trained cross-encoder judges (no grader
    calls), the session's 1.5B model writes."""
    settings = load_settings(data_dir=tmp_path_factory.mktemp("page") / "data", collection="s")
    settings.evaluate.method = "cross-encoder"
    settings.rerank.model = "crag-evaluator"
    settings.rerank.top_k = 3
    settings.generate.max_tokens = 96
    settings.server.warmup = True
    reader = Index.open(settings, embedder=embedder)
    Ingestor(reader, settings.ingest).ingest([SAMPLE])
    settings.refine.floor = 0.0
    pipeline = build_pipeline(settings, reader)
    # thresholds for this corpus (the shipped ones are calibrated on SQuAD/NQ, where the
    # paraphrased bee question scores 0.30 and an off-topic one 0.07)
    pipeline.components.trigger = ActionTrigger(upper=0.25, lower=0.2)
    pipeline.components.generator.llm.llm = generator_llm
    writer = Index.open(settings, embedder=embedder)
    try:
        app = create_app(settings, pipeline=pipeline, index=reader, writer=writer, api_keys=[])
        with serving(app, ready_timeout=300) as base:
            yield base
    finally:
        writer.close()
        reader.close()


@pytest.fixture
def page(browser, url) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    p.goto(url)
    p.wait_for_selector("#docs-summary:not(:empty)")
    yield p
    context.close()
    assert not errors, errors


def _ask(page, question: str) -> None:
    page.fill("#question", question)
    page.press("#question", "Enter")
    page.wait_for_selector(
        "#result[data-state=answered], #result[data-state=failed]", timeout=ANSWER_S
    )
    assert page.get_attribute("#result", "data-state") == "answered", page.inner_text("#result")


def test_a_streamed_cited_answer_and_its_highlighted_span(page, shots) -> None:
    _ask(page, QUESTION)
    assert int(page.get_attribute("#answer", "data-tokens")) > 0  # the draft streamed in
    stages = page.locator("#progress .stage").all_inner_texts()
    assert stages[:3] == ["Retrieved", "Reranked", "Judged"] and stages[-1] == "Written"
    assert page.inner_text("#verdict") in ("CORRECT", "AMBIGUOUS")
    assert page.locator("#refusal").is_hidden()
    answer = page.inner_text("#answer")
    assert "[1]" in answer or page.locator("#answer .cite").count() > 0, answer
    sources = page.locator("#sources li").all_inner_texts()
    assert any("honeybees.md" in s and "LOCAL" in s.upper() for s in sources), sources
    page.screenshot(path=shots / "1-answer.png", full_page=True)

    # keyboard: focus the first citation in the answer, Enter opens the source
    cite = page.locator("#answer .cite, #sources .cite").first
    cite.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#viewer-text mark.support, #viewer-note:not(:empty)")
    where = page.inner_text("#viewer-where")
    assert "honeybees.md" in where and "characters" in where, where
    marked = page.locator("#viewer-text mark.support")
    assert marked.count() == 1, page.inner_text("#viewer-note")
    span = marked.inner_text()
    assert span.strip() and span in page.inner_text("#viewer-text")
    assert page.inner_text("#viewer-note").startswith("Highlighted:")
    page.screenshot(path=shots / "2-citation.png", full_page=True)
    page.keyboard.press("Escape")
    assert page.locator("#viewer").is_hidden()
    assert page.evaluate("document.activeElement.classList.contains('cite')")

    page.click("#trace summary")
    captions = page.locator("#trace caption").all_inner_texts()
    assert {"Scores per chunk (retrieval evaluator)", "Model calls", "Stage times"} <= set(
        captions
    ), captions
    assert page.locator("#trace tr.kept-row").count() > 0
    page.locator("#trace").scroll_into_view_if_needed()
    page.screenshot(path=shots / "3-trace.png", full_page=True)


def _drop(page, files: dict[str, str]) -> None:
    """Drag and drop files onto the drop zone, as a user would from a file manager."""
    page.evaluate(
        """(files) => {
          const dt = new DataTransfer();
          for (const [name, text] of Object.entries(files)) {
            dt.items.add(new File([text], name, { type: "text/plain" }));
          }
          const zone = document.getElementById("drop");
          zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true }));
          zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true }));
        }""",
        files,
    )


def test_upload_by_drop_listed_searchable_then_deleted(page, shots) -> None:
    _drop(page, UPLOADED)
    page.wait_for_selector("#jobs .job.done", timeout=120_000)
    assert "files 2/2" in page.inner_text("#jobs .job.done")
    page.wait_for_selector('#documents li[data-source="quillfeather.md"]')
    assert page.locator('#documents li[data-source="notes.txt"]').count() == 1
    page.screenshot(path=shots / "4-uploaded.png", full_page=True)

    _ask(page, "What colour does the Quillfeather lighthouse's lamp shine?")
    sources = page.locator("#sources li").all_inner_texts()
    assert any("quillfeather.md" in s for s in sources), (page.inner_text("#result"), sources)
    assert "green" in page.inner_text("#answer").lower()
    page.screenshot(path=shots / "5-uploaded-answer.png", full_page=True)

    page.check("#followup")  # a follow-up, read in the light of the last answer
    _ask(page, "and who first lit it?")
    asked = page.inner_text("#asked-as")
    assert asked.startswith("Asked as:") and "quillfeather" in asked.lower(), asked
    assert "edda holm" in page.inner_text("#answer").lower(), page.inner_text("#result")
    page.screenshot(path=shots / "5b-follow-up.png", full_page=True)
    page.click("#new-conversation")
    assert not page.is_checked("#followup")

    page.once("dialog", lambda d: d.accept())
    page.click('#documents li[data-source="notes.txt"] button')
    page.wait_for_selector('#documents li[data-source="notes.txt"]', state="detached")
    assert page.locator('#documents li[data-source="quillfeather.md"]').count() == 1
    page.screenshot(path=shots / "6-deleted.png", full_page=True)


def test_two_collections_each_answered_from_its_own_documents(page, url, shots) -> None:
    """A second collection served beside the sample: the page's picker switches to it, and a
    question about its one document is answered there from it, and refused in the sample."""
    with httpx.Client(base_url=url, timeout=ANSWER_S / 1000) as client:
        assert client.post("/v1/collections", json={"name": "kites"}).status_code == 201
        job = client.post(
            "/v1/documents?collection=kites", files={"files": ("zephyr.md", ZEPHYR)}
        ).json()
        while job["state"] in ("queued", "running"):
            job = client.get(f"/v1/documents/jobs/{job['id']}?collection=kites").json()
        assert job["state"] == "done", job
        sample = client.post("/v1/ask", json={"question": KITE_QUESTION}).json()
    assert sample["refused"] and not sample["citations"], sample  # not from the other's files

    page.reload()
    page.wait_for_selector("#collection-field:not([hidden])")
    page.select_option("#collection", "kites")
    page.wait_for_selector('#documents li[data-source="zephyr.md"]')
    assert page.locator("#documents li").count() == 1
    _ask(page, KITE_QUESTION)
    sources = page.locator("#sources li").all_inner_texts()
    assert sources and all("zephyr.md" in s for s in sources), sources
    assert "oduya" in page.inner_text("#answer").lower()
    page.screenshot(path=shots / "6b-second-collection.png", full_page=True)
    page.select_option("#collection", "s")  # the next tests use the sample


def test_a_refusal_at_375_px(browser, url, shots) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 780}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_selector("#docs-summary:not(:empty)")
        _ask(page, OFF_TOPIC)
        assert page.locator("#refusal").is_visible()
        assert page.inner_text("#refusal").startswith("No answer.")
        assert page.locator("#sources li").count() == 0
        assert page.inner_text("#verdict") == "INCORRECT"
        assert NOTHING_FOUND in page.inner_text("#refusal")  # and why
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the page scrolls sideways at 375 px ({width} px wide)"
        page.screenshot(path=shots / "7-refusal-375px.png", full_page=True)
    finally:
        context.close()


@pytest.fixture(scope="module")
def keyed_url(tmp_path_factory) -> Iterator[str]:
    """A server with an API key and no documents (no model is loaded)."""
    settings = load_settings(data_dir=tmp_path_factory.mktemp("keyed") / "data", collection="k")
    settings.server.warmup = False
    with serving(create_app(settings, api_keys=[KEY])) as base:
        yield base


def test_the_key_is_asked_once_per_browser_session(browser, keyed_url, shots) -> None:
    context = browser.new_context(viewport={"width": 900, "height": 700})
    page = context.new_page()
    try:
        page.goto(keyed_url)
        page.wait_for_selector("#key-dialog[open]")
        page.screenshot(path=shots / "8-key-prompt.png")
        page.fill("#key-input", "not-the-right-key-at-all")
        page.press("#key-input", "Enter")
        page.wait_for_selector("#key-error:not(:empty)")
        assert "not accepted" in page.inner_text("#key-error")
        page.fill("#key-input", KEY)
        page.press("#key-input", "Enter")
        page.wait_for_selector("#docs-summary:not(:empty)")
        assert page.locator("#key-dialog[open]").count() == 0
        assert page.inner_text("#docs-summary").startswith("0 sources")
        stored = page.evaluate("sessionStorage.getItem('crag.apiKey')")
        assert stored == KEY
        page.reload()  # same tab, same session: no second prompt
        page.wait_for_selector("#docs-summary:not(:empty)")
        assert page.locator("#key-dialog[open]").count() == 0
        page.screenshot(path=shots / "9-keyed-after.png")
        assert json.loads(page.evaluate("JSON.stringify(Object.keys(sessionStorage))"))
    finally:
        context.close()
