"""A pipeline that answers from the chunks a metadata filter matches.

Why a copy with another retriever rather than a filter in the graph's state: the filter is a
property of retrieval alone, and every other component (evaluator, generator, web) is shared
with the unfiltered pipeline, so nothing is loaded twice.
"""

from __future__ import annotations

from dataclasses import replace

from crag.index.filters import Filter
from crag.index.retriever import FilteredRetriever, HybridRetriever
from crag.pipeline.runner import Pipeline

__all__ = ["filtered"]


def filtered(pipeline: Pipeline, where: Filter | None) -> Pipeline:
    """`pipeline` itself when there is no filter, else a pipeline over the same components
    whose retriever searches only chunks `where` matches (inside both searches)."""
    if not where:
        return pipeline
    base = pipeline.components.retriever
    if isinstance(base, FilteredRetriever):
        base = base.base
    if not isinstance(base, HybridRetriever):
        from crag.errors import CragError

        raise CragError("metadata filters need the hybrid retriever (crag.index.retriever)")
    return Pipeline(replace(pipeline.components, retriever=FilteredRetriever(base, where)))
