"""Evaluation: metrics, results and the harness behind `crag eval` (data: `crag.datasets`)."""

from crag.eval.harness import Harness, check_modes
from crag.eval.metrics import contains_answer, normalize, token_f1
from crag.eval.results import ResultsFile
from crag.eval.run import EvalConfig, EvalPlan, plan_eval, run_eval
from crag.eval.summary import summarize

__all__ = [
    "EvalConfig",
    "EvalPlan",
    "Harness",
    "ResultsFile",
    "check_modes",
    "contains_answer",
    "normalize",
    "plan_eval",
    "run_eval",
    "summarize",
    "token_f1",
]
