"""Thresholds `crag calibrate` measured on a collection, stored beside its index.

One JSON file per collection, `<data_dir>/collections/<name>/calibration.json`, next to the
catalog. It records the evaluator the thresholds were measured with, named from settings
(`evaluator_name`), because thresholds belong to a scorer: after a switch from the LLM judge to
the cross-encoder (or to another grader model) the stored pair no longer applies and is
ignored. `thresholds_for` reads it below explicit settings and above the evaluator's defaults.

A missing, unreadable or foreign file is never an error here: the question is still answered,
with the defaults, and the reason is logged.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from crag.config import EvaluateSettings

__all__ = [
    "CALIBRATION_FILE",
    "calibration_path",
    "evaluator_name",
    "generator_name",
    "read_calibration",
    "stored_thresholds",
    "stored_verify_cut",
    "write_calibration",
]

log = logging.getLogger(__name__)

CALIBRATION_FILE = "calibration.json"
VERSION = 1


def calibration_path(data_dir: Path, collection: str) -> Path:
    """Where the stored calibration of `collection` lives (beside its catalog)."""
    return Path(data_dir) / "collections" / collection / CALIBRATION_FILE


def evaluator_name(evaluate: EvaluateSettings, grader_model: str) -> str:
    """The evaluator that `evaluate` selects, named as its class names itself.

    `llm-judge:<grader model>` for the LLM judge, `cross-encoder:<model>` for the trained
    cross-encoder, `<method>:<model>` for any other method."""
    if evaluate.method == "llm":
        return f"llm-judge:{grader_model.lower()}"
    return f"{evaluate.method}:{evaluate.model}"


def generator_name(generator: Any) -> str:
    """`<provider>:<model>` of the generator settings (`llm.generator`): the verification that
    `crag calibrate --answers` fits a cut for is asked of that model."""
    return f"{generator.provider}:{generator.model}"


def read_calibration(data_dir: Path, collection: str) -> dict[str, Any] | None:
    """The stored record, or None when there is none or it cannot be read (logged)."""
    path = calibration_path(data_dir, collection)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("%s: unreadable calibration, ignored (%s)", path, exc)
        return None
    if not isinstance(record, dict):
        log.warning("%s: not a calibration record, ignored", path)
        return None
    return record


def stored_thresholds(
    data_dir: Path | None, collection: str, evaluate: EvaluateSettings, grader_model: str
) -> tuple[float, float] | None:
    """(upper, lower) stored for this collection and this evaluator, else None."""
    if data_dir is None:
        return None
    record = read_calibration(data_dir, collection)
    if record is None:
        return None
    wanted = evaluator_name(evaluate, grader_model)
    if record.get("evaluator") != wanted:
        found = record.get("evaluator")
        log.info("calibration of %r is for %s, not %s: not used", collection, found, wanted)
        return None
    try:
        upper, lower = float(record["upper"]), float(record["lower"])
    except (KeyError, TypeError, ValueError):
        log.warning("%s: no usable upper/lower, ignored", calibration_path(data_dir, collection))
        return None
    if not 0.0 <= lower <= upper <= 1.0:
        log.warning("%s: thresholds out of order, ignored", calibration_path(data_dir, collection))
        return None
    return upper, lower


def write_calibration(data_dir: Path, collection: str, record: dict[str, Any]) -> Path:
    """Store `record` (with at least evaluator, upper, lower) atomically; returns its path."""
    missing = {"evaluator", "upper", "lower"} - set(record)
    if missing:
        raise ValueError(f"calibration record lacks {sorted(missing)}")
    path = calibration_path(data_dir, collection)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"version": VERSION, "collection": collection, **record}, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".calibration-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def stored_verify_cut(
    data_dir: Path | None,
    collection: str,
    evaluate: EvaluateSettings,
    grader_model: str,
    generator: str,
) -> float | None:
    """The verification cut `crag calibrate --answers` stored for this collection, when it was
    measured with this evaluator and this generator (`generator_name`), else None."""
    if data_dir is None:
        return None
    record = read_calibration(data_dir, collection)
    if record is None or record.get("verify_cut") is None:
        return None
    wanted = evaluator_name(evaluate, grader_model)
    if record.get("evaluator") != wanted or record.get("generator") != generator:
        log.info(
            "verification cut of %r is for %s with %s, not %s with %s: not used",
            collection, record.get("evaluator"), record.get("generator"), wanted, generator,
        )  # fmt: skip
        return None
    cut = record["verify_cut"]
    if not isinstance(cut, int | float) or not 0.0 <= cut <= 1.0:
        log.warning("%s: verify_cut %r ignored", calibration_path(data_dir, collection), cut)
        return None
    return float(cut)
