"""Evaluation: datasets, splits, metrics and the harness behind `crag eval`."""

from crag.eval.datasets import EvalDataset, EvalItem, load_dataset, select_items
from crag.eval.harness import Harness, check_modes
from crag.eval.metrics import contains_answer, normalize, token_f1
from crag.eval.results import ResultsFile
from crag.eval.run import EvalConfig, EvalPlan, plan_eval, run_eval
from crag.eval.splits import Part, evaluator_part, nq_part
from crag.eval.summary import summarize

__all__ = [
    "EvalConfig",
    "EvalDataset",
    "EvalItem",
    "EvalPlan",
    "Harness",
    "Part",
    "ResultsFile",
    "check_modes",
    "contains_answer",
    "evaluator_part",
    "load_dataset",
    "normalize",
    "nq_part",
    "plan_eval",
    "run_eval",
    "select_items",
    "summarize",
    "token_f1",
]
