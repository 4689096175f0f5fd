"""Loaders for structured QA corpora: SQuAD JSON (v1.1 and v2.0) and JSONL records.

A SQuAD paragraph and a JSONL record are each one `Document`, so citations name the paragraph
(`title#index`) or the record id that the user's own data uses.
"""

from __future__ import annotations

import json
from typing import Any

from crag.datasets.squad import squad_title, squad_unit_id
from crag.errors import LoaderError, UnsupportedFileError
from crag.types import Document

__all__ = ["load_jsonl", "load_squad_json"]

_SCALARS = (str, int, float, bool)


def _json_error(path: str, exc: json.JSONDecodeError, line: int | None = None) -> str:
    where = f"line {line}" if line is not None else f"line {exc.lineno} column {exc.colno}"
    return f"malformed JSON at {where}: {exc.msg}"


def load_squad_json(path: str, text: str) -> tuple[list[Document], list[str]]:
    """SQuAD `{"data": [{"title", "paragraphs": [{"context", "qas"}]}]}`; questions are ignored."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoaderError(path, _json_error(path, exc)) from exc
    except RecursionError as exc:
        raise LoaderError(path, "JSON nested too deeply") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("data"), list):
        # JSON of another kind (package.json, an SBOM): not a document crag reads
        raise UnsupportedFileError(
            path, 'not SQuAD JSON: expected an object with a "data" list of articles'
        )
    docs: list[Document] = []
    warnings: list[str] = []
    for a_idx, article in enumerate(raw["data"]):
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            warnings.append(f"{path}: data[{a_idx}] has no paragraphs list; skipped")
            continue
        title = squad_title(article.get("title"), a_idx)
        for p_idx, para in enumerate(paragraphs):
            context = para.get("context") if isinstance(para, dict) else None
            if not isinstance(context, str) or not context.strip():
                warnings.append(f"{path}: data[{a_idx}].paragraphs[{p_idx}] has no context")
                continue
            docs.append(
                Document(
                    source=path,
                    doc_id=squad_unit_id(article.get("title"), a_idx, p_idx),
                    text=context,
                    title=title,
                    metadata={"article": a_idx, "paragraph": p_idx},
                )
            )
    if not docs:
        raise LoaderError(path, "SQuAD JSON holds no paragraph with a context")
    return docs, warnings


def _metadata(record: dict[str, Any]) -> dict[str, Any]:
    """Keep scalar fields other than the ones crag interprets; Chroma stores scalars only."""
    skip = {"id", "text", "title", "url"}
    return {k: v for k, v in record.items() if k not in skip and isinstance(v, _SCALARS)}


def load_jsonl(path: str, text: str) -> tuple[list[Document], list[str]]:
    """One `{"id", "text", ...}` object a line. Bad lines are reported and skipped."""
    docs: list[Document] = []
    warnings: list[str] = []
    seen: set[str] = set()
    # split on "\n" only: str.splitlines() also breaks on U+2028/U+2029/U+0085, which JSON
    # strings may hold unescaped
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            warnings.append(f"{path}: {_json_error(path, exc, lineno)}; line skipped")
            continue
        except RecursionError:
            warnings.append(f"{path}: line {lineno} is JSON nested too deeply; skipped")
            continue
        if not isinstance(record, dict):
            warnings.append(f"{path}: line {lineno} is not a JSON object; skipped")
            continue
        body = record.get("text")
        if not isinstance(body, str) or not body.strip():
            warnings.append(f'{path}: line {lineno} has no "text" string; skipped')
            continue
        doc_id = str(record.get("id", f"line{lineno}"))
        if doc_id in seen:
            warnings.append(f"{path}: line {lineno} repeats id {doc_id!r}; skipped")
            continue
        seen.add(doc_id)
        docs.append(
            Document(
                source=path,
                doc_id=doc_id,
                text=body,
                title=str(record.get("title") or ""),
                url=str(record.get("url") or ""),
                metadata=_metadata(record),
            )
        )
    if not docs:
        detail = f" ({warnings[0].split(': ', 1)[1]})" if warnings else ""
        raise LoaderError(path, f"no valid JSONL record{detail}")
    return docs, warnings
