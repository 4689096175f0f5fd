"""The corpus of `bench.scale`: real NQ chunks with their real MiniLM vectors, plus generated
chunks, up to 100,000.

Why this shape:
- The NQ chunks and their vectors are taken from a crag collection already built from the NQ
  passages (`crag eval --split` builds `eval-nq-questions-dev-kb`: 10,786 chunks of the 6,203
  knowledge-base passages, embedded with all-MiniLM-L6-v2). Embedding 100k texts here was
  measured at 3 texts/s (2 CPU cores shared by several busy agents): days, not minutes.
- Generated chunks fill the rest. Their *text* comes from a word-bigram chain trained on the NQ
  chunks, with lengths drawn from theirs, so the keyword index sees NQ's vocabulary and term
  frequencies (what candidate sets and BM25's idf depend on) without copies of NQ sentences.
  Their *vector* is not an embedding of that text (no CPU for that): it is the normalised sum
  of three random NQ chunks' vectors plus noise, so it lies where real MiniLM vectors lie and
  some lie near the gold chunks (hard distractors for dense search and for HNSW).
- One ordered list; each size is a prefix, so every size is asked the same questions (their
  golds are among the NQ chunks, which come first) and only the number of competitors grows.
- Both backends and every size get the very same vectors, so the ingest rates measured are the
  stores' own work.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from bench.retrieval_data import NQ_QUESTIONS

__all__ = ["KB_COLLECTION", "Corpus", "build_corpus", "sources"]

KB_COLLECTION = "eval-nq-questions-dev-kb"


@dataclass(slots=True)
class Corpus:
    ids: list[str]  # doc ids: NQ passage ids, then gen-NNNNNN
    texts: list[str]
    vectors: np.ndarray  # (n, 384) float32, unit length
    questions: list[tuple[str, str]]  # (question, gold passage id)
    real: int  # the first `real` chunks are NQ with real vectors


def _nq_chunks(data_dir: Path, collection: str) -> tuple[list[str], list[str], np.ndarray]:
    """(doc ids, texts, vectors) of a crag collection, in catalog order (read-only)."""
    from crag.index.vector import ChromaVectorStore, chroma_client

    path = data_dir / "collections" / collection / "catalog.sqlite3"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT id, doc_id, text FROM chunks ORDER BY source, doc_id, id").fetchall()
    db.close()
    store = ChromaVectorStore(chroma_client(data_dir, None), f"crag-{collection}")
    by_id: dict[str, np.ndarray] = {}
    for i in range(0, len(rows), 2000):
        got = store._collection.get(ids=[r[0] for r in rows[i : i + 2000]], include=["embeddings"])
        by_id.update(zip(got["ids"], got["embeddings"], strict=True))
    keep = [r for r in rows if r[0] in by_id]
    vectors = np.asarray([by_id[r[0]] for r in keep], dtype=np.float32)
    return [r[1] for r in keep], [r[2] for r in keep], vectors


def _bigram_text(chain: dict[str, list[str]], starts: list[str], n: int, rng: random.Random) -> str:
    words = [rng.choice(starts)]
    while len(words) < n:
        nxt = chain.get(words[-1])
        words.append(rng.choice(nxt) if nxt else rng.choice(starts))
    return " ".join(words)


def build_corpus(total: int, questions: int, data_dir: Path, cache: Path, seed: int = 7) -> Corpus:
    """`total` chunks: the NQ collection in `data_dir`, then generated ones; `questions` NQ
    dev questions (seeded sample) whose gold passage is in it. Kept in `cache` (a folder):
    generating takes a minute or two here."""
    path = cache / f"corpus-{total}-{questions}-{seed}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        meta = json.loads(str(z["meta"]))
        return Corpus(meta["ids"], meta["texts"], z["vectors"], meta["questions"], meta["real"])
    rng = random.Random(seed)
    ids, texts, real = _nq_chunks(data_dir, KB_COLLECTION)
    golds = set(ids)
    qs = [json.loads(line) for line in NQ_QUESTIONS.open(encoding="utf-8") if line.strip()]
    rng.shuffle(qs)
    picked = [(q["question"], q["gold_passage"]) for q in qs if q["gold_passage"] in golds]
    chain: dict[str, list[str]] = defaultdict(list)
    starts, lengths = [], []
    for text in texts:
        words = text.split()
        lengths.append(len(words))
        starts.append(words[0] if words else "the")
        for a, b in pairwise(words):
            chain[a].append(b)
    extra = max(0, total - len(ids))
    gen = np.random.default_rng(seed)
    mix = real[gen.integers(0, len(real), size=(extra, 3))].sum(axis=1)
    mix += gen.normal(0, 0.02, size=mix.shape)
    mix /= np.linalg.norm(mix, axis=1, keepdims=True)
    for n in range(extra):
        ids.append(f"gen-{n:06d}")
        texts.append(_bigram_text(chain, starts, max(5, rng.choice(lengths)), rng))
    corpus = Corpus(
        ids[:total],
        texts[:total],
        np.vstack([real, mix.astype(np.float32)])[:total],
        picked[:questions],
        len(real),
    )
    cache.mkdir(parents=True, exist_ok=True)
    meta = {"ids": corpus.ids, "texts": corpus.texts, "questions": corpus.questions}
    meta["real"] = corpus.real
    np.savez(path, vectors=corpus.vectors, meta=np.array(json.dumps(meta, ensure_ascii=False)))
    return corpus


def sources(corpus: Corpus, start: int, end: int, per_source: int = 100) -> list[Any]:
    """Chunks [start, end) as prepared sources of up to `per_source` chunks (a "file" of
    passages), built directly: no loader or chunker, so a write is the store's own work."""
    from crag.index.store import PreparedSource
    from crag.types import Chunk

    out = []
    for first in range(start, end, per_source):
        name = f"scale/part-{first:06d}.txt"
        chunks = []
        for i in range(first, min(end, first + per_source)):
            doc, text = corpus.ids[i], corpus.texts[i]
            cid = hashlib.sha256(f"{name}\x00{doc}\x00{i}\x00{text}".encode()).hexdigest()
            chunks.append(Chunk(cid, text, name, doc, i - first, 0, len(text)))
        digest = hashlib.sha256("".join(c.id for c in chunks).encode()).hexdigest()
        out.append(PreparedSource(name, digest, chunks))
    return out
