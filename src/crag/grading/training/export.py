"""Package a trained evaluator for shipping: fp16 weights, SHA-256 manifest, model card.

Why fp16 safetensors rather than int8 ONNX: it halves the fp32 checkpoint (MiniLM-L6: 90 →
45 MB, inside the 50 MB budget), loads with plain `transformers` (no export step that can drift
from the trained graph, no second runtime), and the loader picks the fast path per CPU at run
time — bfloat16 where the CPU has AMX/AVX-512 BF16, int8 dynamic quantisation elsewhere.
The manifest pins the SHA-256 of every weight file; `CrossEncoderEvaluator` refuses a file
that does not match.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from crag.errors import LoaderError

__all__ = ["export_model"]

CARD = """# crag-evaluator

A cross-encoder that scores how well a passage answers a question (probability, sigmoid of one
logit). crag uses it as the reranker (top 20 → 5) and as the CRAG retrieval evaluator (chunks
and knowledge strips). Produced by the project's own commands:

    crag evaluator train --out {out_hint}
    crag evaluator calibrate --model {out_hint}/model
    crag evaluator export {out_hint}/model

## Base model
{base}

## Training data
{data}

Labels: a chunk is positive when it is part of the gold paragraph/passage and contains a gold
answer; negatives are crag's own hybrid-retrieval hits from other units with no gold answer
(hard negatives), the gold unit's chunks without the answer, and knowledge strips (3-sentence
excerpts) of both. Only questions whose gold unit falls in the "train" part of
`crag.datasets.splits.evaluator_part` were used; thresholds were chosen on the "calibrate" part;
`bench/evaluator.py` measures on the "test" part. SQuAD-TR (licence: evaluation only) was
never trained on.

## Training
{training}

## Held-out metrics
{metrics}

## Thresholds (action trigger)
upper {upper}, lower {lower} — chosen on {calib_n} calibration questions to maximise verdict
credit ({credit}); see `calibration.json` for the curve.

## Files
{files}
"""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _metrics_table(results: dict[str, Any] | None) -> str:
    """The cross-encoder's rows of a `bench/evaluator.py` results file, as a Markdown table."""
    rows = [r for r in (results or {}).get("results", []) if r.get("judge") == "ce"]
    if not rows:
        return (
            "Not measured at export. Measure on held-out pairs with\n"
            "`python -m bench.evaluator --judges ce --model MODEL_DIR --out RUN/metrics.json`\n"
            "and export again."
        )
    lines = [
        "`python -m bench.evaluator` on pairs from test-part questions (never trained on):",
        "",
        "| dataset | pairs | positives | ROC-AUC | accuracy@0.5 | pairs/s |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['dataset']} | {r['pairs']} | {r['positives']} | {r['roc_auc']:.3f} | "
        f"{r['accuracy@0.5']:.3f} | {r['pairs_per_s']:.0f} |"
        for r in rows
    ]
    return "\n".join(lines)


def export_model(
    model_dir: Path,
    dest: Path,
    *,
    out_hint: str = ".crag/evaluator",
    metrics: Path | None = None,
) -> dict[str, Any]:
    """Write the shippable folder `dest` from a trained `model_dir` (and its run folder).

    `metrics`: a `bench/evaluator.py` results file for this model (default
    `<run>/metrics.json` when it exists); its cross-encoder rows go into the model card.
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    run = model_dir.parent
    measured = _read_metrics(metrics, run)  # before `dest` is replaced: a bad file keeps it
    model = AutoModelForSequenceClassification.from_pretrained(model_dir)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    model.to(torch.float16).save_pretrained(dest, safe_serialization=True)
    tokenizer.save_pretrained(dest)
    training = _read(run / "training.json")
    calibration = _read(model_dir / "calibration.json") or _read(run / "calibration.json")
    if calibration:
        (dest / "calibration.json").write_text(json.dumps(calibration, indent=2) + "\n")
    weights = sorted(p.name for p in dest.glob("*.safetensors"))
    hashes = {name: _sha256(dest / name) for name in weights}
    manifest = {
        "name": "crag-evaluator",
        "sha256": hashes,
        "thresholds": {k: calibration[k] for k in ("upper", "lower")} if calibration else None,
        "training": training,
    }
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    sizes = "\n".join(
        f"- {p.name}: {p.stat().st_size / 1e6:.1f} MB"
        + (f", sha256 {hashes[p.name]}" if p.name in hashes else "")
        for p in sorted(dest.iterdir())
    )
    config = (training or {}).get("config", {})
    (dest / "README.md").write_text(
        CARD.format(
            out_hint=out_hint,
            base=config.get("base", "unknown"),
            data=json.dumps(
                {
                    k: (training or {}).get(k)
                    for k in ("pairs", "positives", "by_kind", "by_dataset")
                },
                indent=1,
            ),
            training=json.dumps(
                {
                    k: (training or {}).get(k)
                    for k in (
                        "config",
                        "steps",
                        "bf16",
                        "seconds",
                        "loss_first_100",
                        "loss_last_100",
                    )
                },
                indent=1,
            ),
            metrics=_metrics_table(measured),
            upper=(calibration or {}).get("upper"),
            lower=(calibration or {}).get("lower"),
            calib_n=(calibration or {}).get("questions"),
            credit=(calibration or {}).get("credit"),
            files=sizes,
        )
    )
    return manifest


def _read_metrics(metrics: Path | None, run: Path) -> dict[str, Any] | None:
    """The `bench/evaluator.py` results named by `metrics`, which must exist and be JSON;
    without it `<run>/metrics.json` when there is one."""
    if metrics is None:
        return _read(run / "metrics.json")
    what = "a bench/evaluator.py results JSON"
    try:
        data = json.loads(metrics.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LoaderError(str(metrics), f"no such file ({what})") from None
    except (OSError, ValueError) as exc:  # ValueError: bad JSON or bad UTF-8
        raise LoaderError(str(metrics), f"could not read it as {what}: {exc}") from None
    if not isinstance(data, dict):
        raise LoaderError(str(metrics), f"not a JSON object ({what})")
    return data


def _read(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text()) if path.exists() else None
