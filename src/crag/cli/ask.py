"""`crag ask` and `crag graph`: the corrective pipeline at the command line.

Default output is the answer, its numbered sources and a one-line verdict; `--trace` adds the
rest as rich tables; `--json` prints everything as one JSON object; `--stream` prints node
events as they happen and the answer's tokens as they are generated.
"""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from typing import Annotated

import typer

from crag.cli.common import (
    CollectionOpt,
    WhereOpt,
    collection_settings,
    console,
    err,
    friendly,
)
from crag.cli.render import _print_answer, _print_trace
from crag.errors import CragError
from crag.limits import check_question
from crag.modes import MODES, Mode
from crag.types import Answer

__all__ = ["ask", "graph", "register"]


@friendly
def ask(
    question: Annotated[str, typer.Argument(help="Your question.")],
    mode: Annotated[
        str | None,
        typer.Option(
            help=f"{Mode.CRAG} (corrective) | {Mode.RAG} (plain baseline) | {Mode.SELF_CRAG} "
            "(crag + reflection); default: pipeline.mode"
        ),
    ] = None,
    reflect: Annotated[
        str | None,
        typer.Option(
            help=f"{Mode.SELF_CRAG}: auto (when in doubt) | always; default: pipeline.reflect"
        ),
    ] = None,
    trace: Annotated[bool, typer.Option("--trace", help="Show scores, strips, calls.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print answer + trace as JSON.")] = False,
    stream: Annotated[bool, typer.Option("--stream", help="Print events and tokens live.")] = False,
    where: WhereOpt = None,
    collection: CollectionOpt = None,
) -> None:
    """Answer a question from the indexed documents, citing every claim."""
    from crag.index.filters import parse_filter
    from crag.index.store import Index
    from crag.pipeline import build_pipeline
    from crag.pipeline.filtered import filtered

    settings = collection_settings(collection)
    question = check_question(question, settings.server.max_question_chars)
    mode = mode or settings.pipeline.mode
    if mode not in MODES:
        raise CragError(f"--mode {mode!r}: use one of {', '.join(MODES)}")
    if reflect is not None:
        if reflect not in ("auto", "always"):
            raise CragError(f"--reflect {reflect!r}: use auto or always")
        settings.pipeline.reflect = "always" if reflect == "always" else "auto"
    flt = parse_filter(where)
    index = Index.open(settings)
    try:
        if index.count() == 0:
            raise CragError(
                f"collection {settings.collection!r} is empty; `crag ingest PATH` first"
            )
        pipeline = filtered(build_pipeline(settings, index), flt)
        if stream and not as_json:
            answer: Answer | None = None
            streamed: list[str] = []
            for event in pipeline.stream(question, mode):  # drafts without the NOT_FOUND marker
                if event[0] == "node":
                    if event[1] == "reflect" and event[2].get("route") in (
                        "regenerate",
                        "web_search",
                    ):
                        err.print(
                            f"[yellow]· reflection: {event[2]['route']} — the answer above is "
                            "being redone[/]",
                            highlight=False,
                        )
                    if streamed:
                        sys.stdout.write("\n")
                        sys.stdout.flush()
                    err.print(f"[dim]· {event[1]} done[/]", highlight=False)
                elif event[0] == "token":
                    streamed.append(event[1])
                    sys.stdout.write(event[1])
                    sys.stdout.flush()
                else:
                    answer = event[1]
            assert answer is not None
            if streamed:
                sys.stdout.write("\n")
                if "".join(streamed).strip() != answer.text:
                    # refused, the check removed sentences, or the explanation was quoted
                    # from its source (the draft stops at the short answer): show what stands
                    console.print("[bold]checked answer:[/]")
                    console.print(answer.text, highlight=False, markup=False)
            _print_answer(answer, body=not streamed)
        else:
            with err.status("thinking…") if not as_json else nullcontext():
                answer = pipeline.ask(question, mode)
            if as_json:
                sys.stdout.write(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2) + "\n")
                return
            _print_answer(answer)
        if trace:
            _print_trace(answer)
    finally:
        index.close()


@friendly
def graph(
    mode: Annotated[str, typer.Option(help=" | ".join(Mode))] = Mode.CRAG.value,
) -> None:
    """Print the pipeline's LangGraph as a Mermaid diagram."""
    from crag.pipeline.graph import build_graph

    if mode not in MODES:
        raise CragError(f"--mode {mode!r}: use one of {', '.join(MODES)}")
    # The wiring depends on the mode alone, so no component is loaded to draw it.
    sys.stdout.write(build_graph(Mode(mode)).get_graph().draw_mermaid() + "\n")


def register(app: typer.Typer) -> None:
    app.command()(ask)
    app.command()(graph)
