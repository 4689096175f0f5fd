"""`crag calibrate`: the evaluator's thresholds measured on the user's own collection.

Questions are generated from the collection's chunks (`questions`), scored with and without
their answer in reach (`scoring`), and the thresholds that give the most right answers within
a hallucination budget are chosen (`search`, on the risk–coverage `curve`), drawn (`report`)
and stored per collection (`crag.grading.stored`). `run.run_calibration` does it all,
resumably (`journal`).
"""

from crag.calibrate.curve import Observation
from crag.calibrate.run import CalibrateConfig, CalibrateResult, run_calibration
from crag.calibrate.search import Choice, choose_thresholds

__all__ = [
    "CalibrateConfig",
    "CalibrateResult",
    "Choice",
    "Observation",
    "choose_thresholds",
    "run_calibration",
]
