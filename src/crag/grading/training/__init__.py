"""Training crag's own retrieval evaluator: pairs, fine-tuning, calibration, export.

Behind `crag evaluator train | calibrate | export` (and `scripts/train-evaluator`, which
reproduces the model that ships in `crag/models/data/crag-evaluator`).
"""

from crag.datasets.answers import contains_answer
from crag.grading.training.calibrate import choose_thresholds
from crag.grading.training.pairs import Pair, distill_pairs, mine_pairs
from crag.grading.training.trainer import TrainConfig, train

__all__ = [
    "Pair",
    "TrainConfig",
    "choose_thresholds",
    "contains_answer",
    "distill_pairs",
    "mine_pairs",
    "train",
]
