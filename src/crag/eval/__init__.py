"""Evaluation: datasets, splits, metrics and the harness behind `crag eval`."""

from crag.eval.splits import Part, nq_part

__all__ = ["Part", "nq_part"]
