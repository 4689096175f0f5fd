"""Evaluation: datasets, splits, metrics and the harness behind `crag eval`."""

from crag.eval.splits import Part, evaluator_part, nq_part

__all__ = ["Part", "evaluator_part", "nq_part"]
