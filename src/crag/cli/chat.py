"""`crag chat`: a conversation in the terminal. The models load once, before the first
question, and stay loaded; each later question costs only its own work (the time per turn is
shown). A follow-up ("and when did it open?") is rewritten into a standalone question from the
conversation before retrieval (`crag.followup`).

Commands: `/sources` (the last answer's sources), `/trace` (its trace), `/mode crag|rag|
self-crag`, `/collection NAME` (switch; the conversation starts over), `/new` (forget the
conversation), `/help`, `/quit` (or Ctrl-D).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any

import typer

from crag.cli.common import CollectionOpt, collection_settings, console, err, friendly
from crag.cli.render import print_answer, print_trace, verdict_line
from crag.errors import CragError
from crag.limits import check_question
from crag.modes import MODES, Mode

__all__ = ["ChatSession", "chat", "register"]

HELP = (
    "/sources  the last answer's sources\n"
    "/trace    the last answer's trace\n"
    f"/mode M   {' | '.join(Mode)}\n"
    "/collection NAME  answer from another collection (starts a new conversation)\n"
    "/new      forget the conversation\n"
    "/quit     leave (Ctrl-D works too)"
)


class ChatSession:
    """The state of one conversation: collection, pipeline, mode, turns. The models are
    loaded once and shared when the collection changes (only the index is opened anew)."""

    def __init__(self, settings: Any, mode: str, history_turns: int = 3) -> None:
        from crag.followup import FollowUps

        self.settings = settings
        self.mode = mode
        self.turns: list[Any] = []
        self.last: Any = None
        self.index: Any = None
        self.pipeline: Any = None
        self.history_turns = history_turns
        self.open(settings.collection)
        pipeline: Any = self.pipeline  # set by open()
        self.followups = FollowUps(pipeline.components.generator.llm, max_turns=history_turns)

    def open(self, collection: str) -> None:
        import dataclasses

        from crag.index.retriever import HybridRetriever
        from crag.index.store import Index
        from crag.pipeline import Pipeline, build_pipeline

        settings = self.settings.model_copy(deep=True)
        settings.collection = collection
        embedder = self.index.embedder if self.index is not None else None
        index = Index.open(settings, embedder=embedder)
        if index.count() == 0:
            index.close()
            raise CragError(f"collection {collection!r} is empty; `crag ingest PATH` first")
        if self.pipeline is None:
            pipeline = build_pipeline(settings, index)
        else:  # same models, another index
            parts = dataclasses.replace(
                self.pipeline.components, retriever=HybridRetriever(index, settings.retrieval)
            )
            pipeline = Pipeline(parts)
        if self.index is not None:
            self.index.close()
        self.settings, self.index, self.pipeline = settings, index, pipeline
        self.turns, self.last = [], None

    def warm_up(self) -> None:
        """Load the embedder and every local model now, not during the first question."""
        self.index.embedder.embed(["warm up"], kind="query")
        from crag.pipeline.loadables import loadables

        for model in loadables(self.pipeline.components).values():
            model.load()

    def ask(self, question: str) -> Any:
        from crag.followup import Turn, ask_followup

        history = [Turn(q, a) for q, a in self.turns]
        answer = ask_followup(self.pipeline, self.followups, question, history, self.mode)
        self.turns.append((answer.question, "" if answer.refused else answer.text))
        self.turns = self.turns[-self.history_turns :]
        self.last = answer
        return answer

    def close(self) -> None:
        if self.index is not None:
            self.index.close()


def run_chat(session: ChatSession, read: Callable[[str], str]) -> None:
    """The read-answer loop; `read` is `input` at a terminal (tests pass their own)."""
    while True:
        try:
            line = read(f"{session.settings.collection} › ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if not line:
            continue
        if line.startswith("/"):
            if not _command(session, line):
                return
            continue
        try:  # the server's question limit (issue 21): a huge paste fails now, not minutes later
            line = check_question(line, session.settings.server.max_question_chars)
        except CragError as exc:
            err.print(f"[red]{exc}[/]", highlight=False)
            continue
        started = time.perf_counter()
        with err.status("thinking…"):
            answer = session.ask(line)
        if answer.question != line:
            console.print(f"[dim](asked as: {answer.question})[/]", highlight=False)
        print_answer(answer)
        console.print(f"[dim]turn: {time.perf_counter() - started:.1f} s[/]", highlight=False)


def _command(session: ChatSession, line: str) -> bool:
    """Run one /command; False means leave."""
    name, _, arg = line.partition(" ")
    arg = arg.strip()
    last = session.last
    if name in ("/quit", "/exit", "/q"):
        return False
    if name == "/help":
        console.print(HELP, highlight=False, markup=False)
    elif name == "/sources":
        if last is None or not last.citations:
            console.print("no sources yet" if last is None else "the last answer cites none")
        for c in last.citations if last is not None else []:
            console.print(f"  [{c.n}] {c.origin:<5} {c.label}", highlight=False, markup=False)
    elif name == "/trace":
        if last is None:
            console.print("no answer yet")
        else:
            print_trace(last)
            console.print(f"[dim]{verdict_line(last)}[/]", highlight=False)
    elif name == "/mode":
        if arg not in MODES:
            console.print(f"mode is {session.mode}; use /mode {' | '.join(MODES)}")
        else:
            session.mode = arg
            console.print(f"mode: {arg}")
    elif name == "/collection":
        if not arg:
            console.print(f"collection is {session.settings.collection}; /collection NAME")
        else:
            try:
                session.open(arg)
                console.print(f"collection: {arg} ({session.index.count()} chunks)")
            except CragError as exc:
                err.print(f"[red]{exc}[/]", highlight=False)
    elif name == "/new":
        session.turns, session.last = [], None
        console.print("new conversation")
    else:
        console.print(f"unknown command {name}; /help lists them", highlight=False)
    return True


@friendly
def chat(
    mode: Annotated[
        str | None,
        typer.Option(help=f"{Mode.CRAG} | {Mode.RAG} | {Mode.SELF_CRAG}; default: pipeline.mode"),
    ] = None,
    collection: CollectionOpt = None,
) -> None:
    """A conversation: models load once; follow-ups are understood from the conversation."""
    settings = collection_settings(collection)
    mode = mode or settings.pipeline.mode
    if mode not in MODES:
        raise CragError(f"--mode {mode!r}: use one of {', '.join(MODES)}")
    started = time.perf_counter()
    with err.status("loading models…"):
        session = ChatSession(settings, mode)
        session.warm_up()
    err.print(
        f"[dim]ready in {time.perf_counter() - started:.1f} s · collection "
        f"{settings.collection} ({session.index.count()} chunks) · mode {mode} · /help[/]",
        highlight=False,
    )
    try:
        run_chat(session, input)
    finally:
        session.close()


def register(app: typer.Typer) -> None:
    app.command()(chat)
