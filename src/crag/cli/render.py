"""How an answer is shown at the command line: the answer, its sources and a verdict line;
the trace as rich tables. Used by `crag ask` and `crag chat`."""

from __future__ import annotations

from rich.table import Table

from crag.cli.common import console
from crag.modes import Mode
from crag.trace import ReflectionRecord, WebRecord
from crag.types import Answer, ModelCall

__all__ = ["print_answer", "print_trace", "verdict_line"]


def _verdict_line(answer: Answer) -> str:
    t = answer.trace
    parts = [f"mode {t.mode}"]
    if answer.verdict is not None:
        best = max((e.score for e in t.evaluations if e.score is not None), default=0.0)
        upper, lower = (t.thresholds.upper, t.thresholds.lower) if t.thresholds else (None, None)
        e = t.escalation
        escalated = (
            f"; escalated: P(yes) {e.p_yes:.2f}, cuts {e.upper} / {e.lower}"
            if e is not None and e.p_yes is not None
            else ""
        )
        parts.append(
            f"verdict {answer.verdict.value.upper()} (best chunk {best:.2f}; "
            f"upper {upper}, lower {lower}{escalated})"
        )
    unscored = sum(1 for e in t.evaluations if e.score is None)
    if unscored:
        parts.append(f"{unscored} passage(s) the judge could not score (see --trace)")
    r = t.reflection
    if r is not None:
        if not r.ran:
            parts.append("no reflection")
        else:
            parts.append(
                f"reflected {len(r.rounds)}× → {r.final}"
                + (" · STEP LIMIT" if r.step_limit else "")
            )
    if answer.refused:
        parts.append("refused")
    parts.append(f"{t.total_ms / 1000:.1f} s")
    return " · ".join(parts)


def _print_answer(answer: Answer, *, body: bool = True) -> None:
    if body:
        console.print(answer.text, highlight=False, markup=False)
    if answer.citations:
        console.print("\n[bold]Sources[/]")
        for c in answer.citations:  # local documents and web pages are told apart
            console.print(f"  [{c.n}] {c.origin:<5} {c.label}", highlight=False, markup=False)
    elif answer.trace.mode == Mode.RAG and not answer.refused and answer.trace.reranked:
        # rag does not check citations: when the answer cites nothing, say what it was given
        console.print("\n[bold]Passages the answer was written from[/] (none cited)")
        for i, h in enumerate(answer.trace.reranked, start=1):
            console.print(f"  {i}. {h.cite}", highlight=False, markup=False)
    console.print(f"\n[dim]{_verdict_line(answer)}[/]", highlight=False)


def _print_trace(answer: Answer) -> None:
    t = answer.trace
    scores = {e.id: e.score for e in t.evaluations}
    table = Table(title="retrieved → reranked → evaluated", title_justify="left")
    for col in ("#", "retrieval", "judge", "chunk"):
        table.add_column(col, justify="right" if col != "chunk" else "left")
    for i, h in enumerate(t.reranked or t.retrieved[:5], start=1):
        judge = scores.get(h.id)
        shown = "" if h.id not in scores else "?" if judge is None else f"{judge:.2f}"
        table.add_row(str(i), f"{h.score:.3f}", shown, h.cite)
    console.print(table)
    if t.strips:
        strips = Table(title=f"strips ({sum(s.kept for s in t.strips)} kept)", title_justify="left")
        for col in ("score", "kept", "strip"):
            strips.add_column(col)
        for s in t.strips:
            score = "?" if s.score is None else f"{s.score:.2f}"
            strips.add_row(score, "✓" if s.kept else "", _short(s.text))
        console.print(strips)
    if t.web is not None:
        _print_web(t.web)
    if t.reflection is not None:
        _print_reflection(t.reflection)
    calls = Table(title="model calls", title_justify="left")
    heads = ("role", "model", "purpose", "calls", "prompt tok", "cached", "completion tok", "ms")
    for col in heads:
        calls.add_column(col, justify="left" if col in ("role", "model", "purpose") else "right")
    grouped: dict[tuple[str, str, str], list[ModelCall]] = {}
    for c in t.calls:
        grouped.setdefault((c.role, c.model, c.purpose), []).append(c)
    for (role, model, purpose), cs in grouped.items():
        calls.add_row(
            role, model, purpose, str(len(cs)), str(sum(c.prompt_tokens for c in cs)),
            str(sum(c.cached_tokens for c in cs)), str(sum(c.completion_tokens for c in cs)),
            f"{sum(c.latency_ms for c in cs):.0f}",
        )  # fmt: skip
    console.print(calls)
    stages = Table(title="stages", title_justify="left")
    stages.add_column("stage")
    stages.add_column("ms", justify="right")
    for name, ms in t.stages_ms.items():
        stages.add_row(name, f"{ms:.0f}")
    stages.add_row("total", f"{t.total_ms:.0f}")
    console.print(stages)
    for note in t.notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)


def _short(text: str) -> str:
    return text if len(text) < 160 else text[:157] + "..."


def _print_reflection(r: ReflectionRecord) -> None:
    console.print(
        f"reflection ({r.mode}): {'ran' if r.ran else 'skipped'}: {r.why}",
        highlight=False,
        markup=False,
    )
    if not r.rounds:
        return
    table = Table(title="reflection rounds", title_justify="left")
    for col in ("#", "grounded", "useful", "claims (P supported)", "route"):
        table.add_column(col)
    for rd in r.rounds:
        claims = " · ".join(
            "refusal" if c.score is None and c.supported else
            "?" if c.score is None else f"{c.score:.2f}"
            for c in rd.claims
        )  # fmt: skip
        useful = "refusal" if rd.refusal else (
            "?" if rd.usefulness is None else f"{rd.usefulness:.2f}"
        )  # fmt: skip
        table.add_row(str(rd.round), "yes" if rd.grounded else "NO", useful, claims,
                      f"{rd.route}: {rd.why}")  # fmt: skip
    console.print(table)


def _print_web(web: WebRecord) -> None:
    console.print(
        f"web search: {web.provider} · query {web.query!r} "
        f"({web.rewrite.method}) · cache {web.cache or '–'}",
        highlight=False,
        markup=False,
    )
    if web.rewrite.reason:
        console.print(
            f"model rewrite {web.rewrite.raw!r} rejected: {web.rewrite.reason}",
            highlight=False,
            markup=False,
        )
    if web.error:
        console.print(f"[yellow]web search failed:[/] {web.error}", highlight=False)
    pages = {p.url: p for p in web.pages}
    table = Table(title="web results", title_justify="left")
    for col in ("#", "page", "url"):
        table.add_column(col)
    for i, r in enumerate(web.results, start=1):
        page = pages.get(r.url)
        state: str = "snippet" if page is None else page.status
        if page is not None and page.reason:
            state += f": {page.reason}"
        table.add_row(str(i), state, r.url)
    console.print(table)
    if web.strips:
        kept = Table(
            title=f"web strips ({sum(s.kept for s in web.strips)} kept)", title_justify="left"
        )
        for col in ("score", "kept", "strip"):
            kept.add_column(col)
        for s in web.strips:
            kept.add_row(f"{s.score:.2f}", "✓" if s.kept else "", _short(s.text))
        console.print(kept)


print_answer = _print_answer
print_trace = _print_trace
verdict_line = _verdict_line
