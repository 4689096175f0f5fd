"""The local models reachable from a pipeline's components."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crag.pipeline.loadables import loadables


@dataclass
class _Model:
    name: str

    def load(self) -> None:
        pass


@dataclass
class _Role:  # a role wrapper: a load of its own, and the model behind it
    llm: _Model
    name: str = "generator"

    def load(self) -> None:
        self.llm.load()


@dataclass
class _Part:
    llm: Any = None


@dataclass
class _Components:
    evaluator: Any
    generator: Any
    reranker: Any
    refiner: Any


def test_loadables_follow_llm_links_once_per_name() -> None:
    cross_encoder = _Model("crag-evaluator")  # evaluator and reranker: one model
    components: Any = _Components(
        evaluator=cross_encoder,
        generator=_Part(_Role(_Model("qwen2.5-coder-1.5b"))),
        reranker=cross_encoder,
        refiner=_Part(),  # no model behind it
    )
    found = loadables(components)
    assert sorted(found) == ["crag-evaluator", "generator", "qwen2.5-coder-1.5b"]
    assert found["crag-evaluator"] is cross_encoder
