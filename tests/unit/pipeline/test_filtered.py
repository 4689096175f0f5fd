"""`filtered(pipeline, where)`: the same components with a retriever bound to the filter."""

from __future__ import annotations

from unittest.mock import sentinel

import pytest

from crag.errors import CragError
from crag.grading import ActionTrigger
from crag.index.filters import Filter, parse_filter
from crag.index.retriever import FilteredRetriever, HybridRetriever
from crag.pipeline import Components, Pipeline
from crag.pipeline.filtered import filtered


def _pipeline(retriever: object) -> Pipeline:
    return Pipeline(
        Components(
            retriever=retriever,  # type: ignore[arg-type]
            evaluator=sentinel.evaluator,
            trigger=ActionTrigger(1.0, 0.0),
            refiner=sentinel.refiner,
            generator=sentinel.generator,
        )
    )


def test_filtered_pipeline_shares_everything_but_the_retriever() -> None:
    base = HybridRetriever(sentinel.index)
    plain = _pipeline(base)
    assert filtered(plain, Filter()) is plain and filtered(plain, None) is plain
    where = parse_filter(["type=pdf"])
    narrowed = filtered(plain, where)
    retriever = narrowed.components.retriever
    assert isinstance(retriever, FilteredRetriever)
    assert retriever.base is base and retriever.where == where
    assert narrowed.components.generator is plain.components.generator
    again = filtered(narrowed, parse_filter(["year>=2024"]))  # replaces, never stacks
    assert again.components.retriever.base is base  # type: ignore[attr-defined]


def test_a_retriever_without_filters_is_refused() -> None:
    with pytest.raises(CragError, match="hybrid retriever"):
        filtered(_pipeline(sentinel.retriever), parse_filter(["type=pdf"]))
