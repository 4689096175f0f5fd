"""The knowledge base of an eval run: which collection, which settings, which files go in.

Why a module of its own: the same questions give different figures over a different index, so
everything that decides the index — collection name, embedding model, stemmer, the kb/web
split — is settled here, once, and recorded in the run's fingerprint.

- Language: detected from the questions (`--language auto`) unless given. For a language other
  than English the English-only default embedding (all-MiniLM-L6-v2) is replaced by the packaged
  `use-multilingual` model, and the default English stemmer by the language's Snowball stemmer
  (`turkish` for SQuAD-TR). Settings the user chose in crag.toml or CRAG_* are kept.
- Split (`--split`): a JSONL passage file is cut by `crag.datasets.splits.nq_part`; only the
  'kb' part (45 %) is written to `<data_dir>/eval/<name>.kb.jsonl` and indexed, and each
  question is tagged with the part its gold passage fell in.
- Near-miss (`--near-miss`): the gold units chosen by `crag.datasets.nearmiss` are left out
  of a copy of the knowledge base, indexed into `<collection>-nearmiss-<hash of the set>`.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

from crag.config import EmbeddingSettings, KeywordSettings, Settings
from crag.datasets import EvalItem
from crag.datasets.splits import nq_part
from crag.datasets.text import write_if_changed
from crag.errors import CragError
from crag.grading.thresholds import settings_thresholds

__all__ = [
    "default_collection",
    "detect_language",
    "language_settings",
    "near_miss_settings",
    "split_kb",
    "tag_parts",
]

SNOWBALL = {
    "en": "english", "tr": "turkish", "de": "german", "fr": "french", "es": "spanish",
    "it": "italian", "nl": "dutch", "pt": "portuguese", "ru": "russian", "ar": "arabic",
    "sv": "swedish",
}  # fmt: skip
MULTILINGUAL = "use-multilingual"


def detect_language(items: list[EvalItem], sample: int = 60) -> str:
    """The most common language of (up to `sample`) questions, by crag's own detector."""
    from crag.generate.language import detect_language as detect

    votes = Counter(detect(it.question) for it in items[:sample])
    return votes.most_common(1)[0][0] if votes else "en"


def language_settings(settings: Settings, language: str) -> tuple[Settings, list[str]]:
    """Settings fit for questions in `language`, and notes saying what was changed."""
    notes: list[str] = []
    if language == "en":
        return settings, notes
    settings = settings.model_copy(deep=True)
    if settings.embedding.model == EmbeddingSettings.model_fields["model"].default:
        settings.embedding.model = MULTILINGUAL
        notes.append(f"language {language}: embedding.model={MULTILINGUAL}")
    if settings.keyword.language == KeywordSettings.model_fields["language"].default:
        settings.keyword.language = SNOWBALL.get(language, "none")
        notes.append(f"language {language}: keyword.language={settings.keyword.language}")
    return settings, notes


def default_collection(dataset_name: str, split: bool) -> str:
    """`eval-<dataset>` (plus `-kb` for a split corpus): one index per dataset, reused."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", dataset_name).strip("-.")[:48] or "dataset"
    return f"eval-{slug}{'-kb' if split else ''}"


def near_miss_settings(settings: Settings, digest: str) -> Settings:
    """Settings for the near-miss collection `<collection>-nearmiss-<digest>`: a separate
    index (the withheld set is in its name), judged with the full collection's thresholds and
    verification cut — those configured for it, or those `crag calibrate` stored for it — so
    that a near-miss run measures the thresholds the user's questions meet."""
    from crag.pipeline.build import verify_cut

    suffix = f"-nearmiss-{digest}"
    base = settings.collection
    name = base[: 61 - len(suffix)].rstrip("-.") + suffix
    settings = settings.model_copy(deep=True)
    per = settings.evaluate.per_collection
    if name not in per:
        per[name] = settings_thresholds(settings, collection=base)
    settings.generate.verify_cut = verify_cut(settings)  # the base collection's
    settings.collection = name
    return settings


def tag_parts(items: list[EvalItem]) -> list[EvalItem]:
    """Each question tagged with the part (kb / web / held_out) of its gold passage."""
    return [replace(it, part=nq_part(it.gold_unit) if it.gold_unit else None) for it in items]


def split_kb(files: list[Path], work_dir: Path) -> list[Path]:
    """The 'kb' part of JSONL passage files, written under `work_dir` (rewritten only when its
    content changes, so re-ingesting it is a no-op)."""
    out: list[Path] = []
    for path in files:
        name = path.name.removesuffix(".gz")
        if not name.endswith((".jsonl", ".ndjson")):
            raise CragError(
                f"--split needs JSONL passage files as the knowledge base; {path} is not one"
            )
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")
        kept = []
        for lineno, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                pid = json.loads(line)["id"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise CragError(f'{path}: line {lineno} has no passage "id" to split by') from exc
            if nq_part(str(pid)) == "kb":
                kept.append(line)
        target = work_dir / f"{name.rsplit('.', 1)[0]}.kb.jsonl"
        body = "\n".join(kept) + "\n"
        write_if_changed(target, body)
        out.append(target)
    return out
