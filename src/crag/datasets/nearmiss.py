"""Near-miss questions: the gold unit withheld from the index, the topic left in it.

Why: a question whose answer is nowhere near the knowledge base is easy to refuse; the hard
case — and the one a user meets — is a collection that covers the topic but not the fact.
`choose_near_miss` picks a seeded share of the sampled answerable questions and withholds
their gold paragraph (SQuAD) or passage (NQ / JSONL); `withhold_kb` writes the knowledge-base
files without those units, to be indexed into a collection of their own. Every question
whose gold unit is withheld becomes a near-miss (part "near_miss"): it should be refused, and
an answer that still holds a gold answer came from another unit ("found elsewhere").

Units are withheld whole: SQuAD asks several questions of one paragraph, so all sampled
answerable questions on a withheld paragraph become near-miss together. The share is met as
closely as possible without exceeding it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from crag.datasets.items import EvalItem
from crag.datasets.squad import squad_unit_id
from crag.datasets.text import write_if_changed
from crag.errors import CragError

__all__ = ["NEAR_MISS", "NearMiss", "choose_near_miss", "withhold_kb"]

NEAR_MISS = "near_miss"  # the part a near-miss question is tagged with


@dataclass(frozen=True, slots=True)
class NearMiss:
    """The sample with its near-miss questions tagged, and the units withheld for them."""

    items: list[EvalItem]
    withheld: frozenset[str]
    share: float

    @property
    def digest(self) -> str:
        """A short hash of the withheld set: names the collection and enters the fingerprint."""
        body = "\n".join(sorted(self.withheld)).encode("utf-8")
        return hashlib.sha256(body).hexdigest()[:8]

    @property
    def count(self) -> int:
        return sum(it.part == NEAR_MISS for it in self.items)


def _candidate(item: EvalItem) -> bool:
    """Answerable, with a gold unit that is in the index (not split off to the web part)."""
    return bool(item.answerable and item.answers and item.gold_unit) and item.part in (None, "kb")


def choose_near_miss(items: list[EvalItem], share: float, seed: int = 0) -> NearMiss:
    """Tag `share` of the answerable questions of `items` as near-miss (seeded, deterministic).

    The order of `items` is kept; only the chosen questions change (part "near_miss")."""
    if not 0 < share <= 1:
        raise CragError("--near-miss must be a share within (0, 1], e.g. 0.5")
    candidates = [it for it in items if _candidate(it)]
    by_unit: dict[str, list[EvalItem]] = defaultdict(list)
    for it in candidates:
        by_unit[str(it.gold_unit)].append(it)
    target = round(share * len(candidates))
    order = list(candidates)
    random.Random(f"near-miss:{seed}").shuffle(order)
    withheld: set[str] = set()
    count = 0
    for it in order:
        unit = str(it.gold_unit)
        if count >= target:
            break
        if unit in withheld or count + len(by_unit[unit]) > target:
            continue
        withheld.add(unit)
        count += len(by_unit[unit])
    tagged = [
        replace(it, part=NEAR_MISS) if _candidate(it) and it.gold_unit in withheld else it
        for it in items
    ]
    return NearMiss(tagged, frozenset(withheld), share)


def _read(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")


def _squad_without(text: str, withheld: frozenset[str], path: Path) -> str:
    """The SQuAD file with the withheld paragraphs emptied in place: the others keep their
    position, hence their `Title#index` unit id (the loader skips an empty paragraph)."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CragError(f"{path}: malformed JSON ({exc.msg})") from exc
    for a_idx, article in enumerate(raw.get("data", [])):
        paragraphs = article.get("paragraphs", []) if isinstance(article, dict) else []
        for p_idx in range(len(paragraphs)):
            if squad_unit_id(article.get("title"), a_idx, p_idx) in withheld:
                paragraphs[p_idx] = {"context": "", "qas": []}
    return json.dumps(raw, ensure_ascii=False)


def _jsonl_without(text: str, withheld: frozenset[str]) -> str:
    kept = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            unit = str(json.loads(line).get("id"))
        except (json.JSONDecodeError, AttributeError):
            unit = None  # the loader reports it, as it would without --near-miss
        if unit not in withheld:
            kept.append(line)
    return "\n".join(kept) + "\n"


def withhold_kb(files: list[Path], withheld: frozenset[str], work_dir: Path) -> list[Path]:
    """Copies of the knowledge-base `files` without the `withheld` units, under `work_dir`
    (rewritten only when their content changes, so re-ingesting them is a no-op)."""
    out: list[Path] = []
    for path in files:
        name = path.name.removesuffix(".gz")
        if name.endswith(".json"):
            body = _squad_without(_read(path), withheld, path)
        elif name.endswith((".jsonl", ".ndjson")):
            body = _jsonl_without(_read(path), withheld)
        else:
            raise CragError(
                f"--near-miss withholds SQuAD paragraphs or JSONL passages; {path} is neither"
            )
        target = work_dir / name
        write_if_changed(target, body)
        out.append(target)
    return out
