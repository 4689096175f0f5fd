"""A sentence-transformers folder run by transformers alone: the same vectors, a second sooner.

Importing sentence-transformers costs about 2.9 s more than torch and transformers' auto classes
on the 2-core machine crag is measured on (it pulls in scikit-learn, its training and
quantisation code). Loading the model through transformers alone still imports the modelling
code both need, so the net saving is about 1.3 s for the embedder and 0.9 s for a whole
`crag ask` — in every new process, and every `crag ask` or `crag ingest` is one. Most
bi-encoders, the packaged all-MiniLM-L6-v2 among them, are a plain stack: a transformer, mean or
[CLS] pooling, and perhaps L2 normalisation (`modules.json`). For such a folder this module
does what sentence-transformers does — strip each text, truncate it at the folder's
`max_seq_length`, pool over the attention mask — and normalises, as crag
asks sentence-transformers to (`normalize_embeddings`), with
`AutoTokenizer` and `AutoModel`, and the vectors agree with sentence-transformers' to within
float rounding (checked by tests/unit/models/test_plain_embedder.py on the packaged model), so
an index built either way serves queries embedded the other way.

Anything else (a hub name, a Dense layer, prompts, another pooling, lower-casing, which
sentence-transformers does in the tokenizer's normaliser) is not a plain stack:
`plain_stack` returns None and `crag.models.embedder` loads it with sentence-transformers.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from crag.errors import ModelLoadError
from crag.models._quiet import quiet_transformers

__all__ = ["PlainEmbedder", "PlainStack", "plain_stack"]

_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
_Pooling = Literal["mean", "cls"]
_POOL_MODES: dict[str, _Pooling] = {
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_cls_token": "cls",
}


@dataclass(frozen=True, slots=True)
class PlainStack:
    """What a plain stack's folder says: how long an input may be, how it is pooled."""

    folder: Path
    max_seq_length: int
    pooling: _Pooling
    dim: int


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def plain_stack(folder: str | Path) -> PlainStack | None:
    """The plain stack saved in `folder`, or None when it is anything else (or unreadable)."""
    root = Path(folder)
    try:
        modules = _json(root / "modules.json")
        types = [m["type"] for m in modules]
        if types not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
            return None
        if modules[0].get("path", "") != "":
            return None
        config = _json(root / "sentence_bert_config.json")
        pooling = _json(root / modules[1]["path"] / "config.json")
        st_config = root / "config_sentence_transformers.json"
        extra = _json(st_config) if st_config.is_file() else {}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    if extra.get("prompts") or extra.get("default_prompt_name") or config.get("do_lower_case"):
        return None
    on = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
    if len(on) != 1 or on[0] not in _POOL_MODES or pooling.get("include_prompt") is False:
        return None
    length, dim = config.get("max_seq_length"), pooling.get("word_embedding_dimension")
    if not isinstance(length, int) or not isinstance(dim, int):
        return None
    return PlainStack(root, length, _POOL_MODES[on[0]], dim)


class PlainEmbedder:
    """A plain stack (`plain_stack`) embedded with transformers, loaded lazily on first use."""

    def __init__(
        self,
        stack: PlainStack,
        *,
        name: str,
        batch_size: int = 64,
        device: str = "cpu",
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        self.stack = stack
        self.model_ref = str(stack.folder)
        self.name = name
        self.batch_size = batch_size
        self.device = device
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self._model: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self.stack.dim

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                quiet_transformers()
                try:
                    from transformers import AutoModel, AutoTokenizer

                    tokenizer = AutoTokenizer.from_pretrained(self.model_ref)
                    model = AutoModel.from_pretrained(self.model_ref).to(self.device).eval()
                except Exception as exc:
                    raise ModelLoadError(
                        f"cannot load embedding model {self.model_ref!r}: {exc}"
                    ) from exc
                self._model = (tokenizer, model)
        return self._model

    def embed(self, texts: list[str], kind: str = "document") -> np.ndarray:
        """(n, dim) float32 vectors, in the order of `texts`. Longest texts are batched together
        (as sentence-transformers does), so a batch pads little."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        prefix = self.query_prefix if kind == "query" else self.document_prefix
        prepared = [(prefix + t).strip() for t in texts]
        order = np.argsort([-len(t) for t in prepared], kind="stable")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._batch([prepared[i] for i in rows])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        import torch

        tokenizer, model = self._load()
        encoded = tokenizer(
            texts,
            padding=True,
            truncation="longest_first",
            max_length=self.stack.max_seq_length,
            return_tensors="pt",
        ).to(self.device)
        with torch.inference_mode():
            tokens = model(**encoded)[0]
            if self.stack.pooling == "cls":
                pooled = tokens[:, 0]
            else:
                mask = encoded["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
        vectors: np.ndarray = pooled.float().cpu().numpy()
        return vectors
