"""The trained evaluator: a cross-encoder that reads question and passage together.

One model serves two stages. As the **reranker** it orders the 20 retrieved chunks; as the
**retrieval evaluator** it gives each of the top 5 (and each knowledge strip) a probability
that the passage answers the question. Scores are cached per (question, passage), so the
evaluator's verdict on the reranked chunks costs nothing after reranking.

`model` is `"crag-evaluator"` (the model trained by `crag evaluator train` that ships inside
the package, verified against its pinned SHA-256), a local model folder, or a Hugging Face
name (with a network). Precision `auto` runs bfloat16 on CPUs with AMX / AVX-512 BF16 and
int8 (dynamic quantisation of the linear layers) elsewhere; both keep the ranking of fp32 on
our held-out pairs (`bench/evaluator.py`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Literal, cast

from crag.errors import ModelLoadError
from crag.models._quiet import quiet_transformers

__all__ = [
    "PACKAGED_EVALUATOR",
    "CrossEncoderEvaluator",
    "bf16_available",
    "calibrated_thresholds",
    "packaged_evaluator_dir",
]

PACKAGED_EVALUATOR = "crag-evaluator"
Precision = Literal["auto", "fp32", "bf16", "int8"]


def packaged_evaluator_dir() -> Path:
    """Where the evaluator trained by `crag evaluator train` ships inside the package."""
    return Path(__file__).resolve().parent / "data" / PACKAGED_EVALUATOR


def _verify(folder: Path) -> None:
    """Refuse a packaged model whose weights do not match the SHA-256 in its manifest."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, expected in manifest["sha256"].items():
        digest = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        if digest != expected:
            raise ModelLoadError(
                f"{folder / name}: SHA-256 {digest[:12]}… does not match the pinned "
                f"{expected[:12]}…; reinstall crag or retrain with `crag evaluator train`"
            )


def resolve_model(model: str) -> str:
    if model == PACKAGED_EVALUATOR:
        folder = packaged_evaluator_dir()
        if not (folder / "manifest.json").exists():
            raise ModelLoadError(
                f"the packaged evaluator is missing from {folder}; reinstall crag, or set "
                "evaluate.method = 'llm'"
            )
        _verify(folder)
        return str(folder)
    return model


def bf16_available() -> bool:
    """bfloat16 matmuls are fast on this CPU (AMX or AVX-512 BF16): inference and training
    both choose their precision by it."""
    import torch

    try:
        return bool(torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())
    except AttributeError:  # pragma: no cover - older torch
        return False


def calibrated_thresholds(model: str) -> tuple[float, float] | None:
    """(upper, lower) stored with a model by `crag evaluator calibrate`, if any."""
    folder = packaged_evaluator_dir() if model == PACKAGED_EVALUATOR else Path(model)
    path = folder / "calibration.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    return float(data["upper"]), float(data["lower"])


def _int8(model: Any) -> tuple[Any, Precision]:
    """`model` with dynamically int8-quantised linear layers, or as it is in fp32 where this
    torch no longer has eager quantisation (deprecated since torch 2.10 in favour of torchao,
    which crag does not depend on; int8 is only the fallback for CPUs without bf16)."""
    import warnings

    import torch

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # torch.ao.quantization's
            warnings.filterwarnings("ignore", "torch.quantize_per_tensor", UserWarning)
            quantised = torch.ao.quantization.quantize_dynamic(
                model, {torch.nn.Linear}, dtype=torch.qint8
            )
    except (AttributeError, ImportError, NotImplementedError, RuntimeError):
        return model, "fp32"
    return quantised, "int8"


class CrossEncoderEvaluator:
    """`RetrievalEvaluator` and `Reranker` in one: sigmoid of a cross-encoder's logit."""

    def __init__(
        self,
        model: str = PACKAGED_EVALUATOR,
        *,
        batch_size: int = 32,
        max_length: int = 256,
        precision: Precision = "auto",
        cache_size: int = 4096,
        threads: int | None = None,
    ) -> None:
        self.model_ref = model
        self.name = f"cross-encoder:{model}"
        self.batch_size = batch_size
        self.max_length = max_length
        self.precision = precision
        self.threads = threads
        self._cache: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any, Any] | None = None

    def load(self) -> tuple[Any, Any, Any]:
        """(tokenizer, model, autocast factory), loaded once."""
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> tuple[Any, Any, Any]:
        quiet_transformers()
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        source = resolve_model(self.model_ref)
        try:
            tokenizer = AutoTokenizer.from_pretrained(source)
            model = AutoModelForSequenceClassification.from_pretrained(
                source, torch_dtype=torch.float32
            )
        except Exception as exc:
            raise ModelLoadError(
                f"cannot load evaluator model {self.model_ref!r}: {exc}. Use "
                f"'{PACKAGED_EVALUATOR}', a local folder, or a hub name with network access."
            ) from exc
        if model.config.num_labels != 1:
            raise ModelLoadError(
                f"evaluator model {self.model_ref!r} has {model.config.num_labels} labels; "
                "a relevance cross-encoder has one"
            )
        model.eval()
        if self.threads:
            torch.set_num_threads(self.threads)
        precision = self.precision
        if precision == "auto":
            precision = "bf16" if bf16_available() else "int8"
        if precision == "int8":
            model, precision = _int8(model)
        self.precision_used = precision
        autocast = (
            (lambda: torch.autocast("cpu", dtype=torch.bfloat16))
            if precision == "bf16"
            else nullcontext
        )
        return tokenizer, model, autocast

    def _predict(self, question: str, passages: list[str]) -> list[float]:
        import torch

        tokenizer, model, autocast = self.load()
        order = sorted(range(len(passages)), key=lambda i: len(passages[i]))
        out = [0.0] * len(passages)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            enc = tokenizer(
                [question] * len(idx),
                [passages[i] for i in idx],
                truncation="only_second",
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )
            with torch.inference_mode(), autocast():
                logits = model(**enc).logits.squeeze(-1).float()
            for i, p in zip(idx, torch.sigmoid(logits).tolist(), strict=True):
                out[i] = float(p)
        return out

    def score(self, question: str, passages: list[str]) -> list[float]:
        """P(the passage answers the question) for each passage, in order."""
        if not passages:
            return []
        with self._lock:
            cached = {p: self._cache.get((question, p)) for p in passages}
        todo = list(dict.fromkeys(p for p, s in cached.items() if s is None))
        if todo:
            fresh = dict(zip(todo, self._predict(question, todo), strict=True))
            with self._lock:
                for p, s in fresh.items():
                    self._cache[(question, p)] = s
                    cached[p] = s
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return [float(cast(float, cached[p])) for p in passages]  # every one filled above
