"""What a reader of a run's report must know beside its figures: web searches that failed,
questions whose gold passage was withheld, and modes whose latencies do not compare."""

from __future__ import annotations

from typing import Any

__all__ = ["near_miss_note", "shared_process_note", "web_failed_lines", "web_failed_note"]


def web_failed_lines(modes: dict[str, Any]) -> list[str]:
    """One warning per mode whose web searches failed on some questions."""
    lines = []
    for m, s in modes.items():
        failed = s.get("web_failed") or {}
        if failed.get("n"):
            lines.append(
                f"{m}: web search failed on {failed['n']} of {s['n']} questions, which were "
                f"answered without it (first: {failed['first']})"
            )
    return lines


def web_failed_note(modes: dict[str, Any]) -> list[str]:
    lines = web_failed_lines(modes)
    return [f"**Warning**: {line}." for line in lines] + [""] if lines else []


def near_miss_note(meta: dict[str, Any]) -> str:
    if not meta.get("near_miss"):
        return ""
    return (
        f" Near-miss: {meta.get('near_miss_questions')} answerable question(s) "
        f"(share {meta['near_miss']:g}) had their gold passage withheld from the index; they "
        "count as should-refuse."
    )


def shared_process_note(modes: dict[str, Any], meta: dict[str, Any]) -> list[str]:
    """Modes run in one process (`--one-process`, or a summary from before processes per
    mode: no `process_per_mode` key) share its caches, whatever `--order`: llama.cpp's prompt
    cache keeps an earlier mode's computed prompts (rag's reading of the very chunks crag's
    strips start with), so a later mode's latency comes out too low (docs/evaluation.md)."""
    if len(modes) < 2 or meta.get("process_per_mode"):
        return []
    return [
        "Modes of one run share the process's caches (llama.cpp's prompt cache, the "
        "reranker's scores): a mode finds work another did on the same question, so these "
        "latencies do not compare modes. Run without `--one-process` (each mode then answers "
        "in a process of its own), or time each mode in a run of its own, or with "
        "`python -m bench.latency`.",
        "",
    ]
