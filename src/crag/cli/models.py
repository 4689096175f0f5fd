"""`crag models`: which model plays each role, where it runs, and whether it is reachable.

The check is cheap and loads nothing: the local provider looks for the GGUF file (or its
packaged parts), Ollama answers `/api/tags` (and must list the model), an OpenAI-compatible
server answers `/models` with the key. Keys are shown only as the name of their variable and
whether it is set — never their value. Exit code 2 when a configured role is unreachable, so
`crag models && crag ask ...` stops early.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from crag.cli.common import collection_settings, console, friendly
from crag.config import ROLES
from crag.redact import redact

__all__ = ["models", "register"]


def _rows(check: bool) -> list[dict[str, Any]]:
    from crag.models.llm.registry import providers
    from crag.pipeline.build import make_llm

    settings = collection_settings(None)
    models_dir = settings.llm.models_dir or settings.data_dir / "models"
    rows: list[dict[str, Any]] = []
    health: dict[tuple[Any, ...], Any] = {}
    for name in ROLES:
        role = settings.llm.role(name)
        llm = make_llm(role, models_dir)  # builds a client; connects and loads nothing
        key_env = getattr(llm, "key_env", None)
        base_url = getattr(llm, "base_url", None) if role.provider != "local" else None
        row: dict[str, Any] = {
            "role": name,
            "provider": role.provider,
            "model": role.model,
            "base_url": redact(base_url) if base_url else "in-process",
            "key_env": key_env,
            "key_set": bool(os.environ.get(key_env)) if key_env else None,
            "same_as": "generator" if name == "reflector" and not settings.llm.reflector else None,
            "provider_info": providers()[role.provider].description,
        }
        if check:
            key = (role.provider, role.model, base_url, key_env)
            if key not in health:
                health[key] = llm.check() if hasattr(llm, "check") else None
            found = health[key]
            row["reachable"] = None if found is None else found.ok
            row["detail"] = "no check available" if found is None else redact(found.detail)
        close = getattr(llm, "close", None)
        if callable(close):
            close()
        rows.append(row)
    return rows


def _providers_table() -> Table:
    from crag.models.llm.registry import providers

    table = Table(title="providers", title_justify="left")
    for col in ("name", "default base URL", "key variable", "what"):
        table.add_column(col)
    for p in sorted(providers().values(), key=lambda p: p.name):
        table.add_row(p.name, redact(p.base_url or ""), p.key_env or "", p.description)
    return table


@friendly
def models(
    as_json: Annotated[bool, typer.Option("--json", help="Print the roles as JSON.")] = False,
    check: Annotated[
        bool, typer.Option("--check/--no-check", help="Check that each model is reachable.")
    ] = True,
    list_providers: Annotated[
        bool, typer.Option("--providers", help="Also list the registered providers.")
    ] = False,
) -> None:
    """List the roles (grader, generator, reflector): provider, model, server, reachability."""
    rows = _rows(check)
    unreachable = [r["role"] for r in rows if r.get("reachable") is False]
    if as_json:
        out: dict[str, Any] = {"roles": rows}
        if list_providers:
            from crag.models.llm.registry import providers

            out["providers"] = [
                {"name": p.name, "base_url": redact(p.base_url) if p.base_url else p.base_url,
                 "key_env": p.key_env,
                 "description": p.description}
                for p in providers().values()
            ]  # fmt: skip
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        table = Table(title="LLM roles", title_justify="left")
        for col in ("role", "provider", "model", "base URL", "key", "reachable"):
            table.add_column(col, overflow="fold")
        for r in rows:
            key = ""
            if r["key_env"]:
                key = f"${r['key_env']} " + ("set" if r["key_set"] else "[red]missing[/]")
            if not check:
                reach = "[dim]not checked[/]"
            elif r["reachable"] is None:
                reach = f"[dim]{escape(r['detail'])}[/]"
            else:
                mark = "[green]✓[/]" if r["reachable"] else "[red]✗[/]"
                reach = f"{mark} {escape(r['detail'])}"
            model = escape(r["model"]) + (f" [dim](= {r['same_as']})[/]" if r["same_as"] else "")
            table.add_row(r["role"], r["provider"], model, escape(r["base_url"]), key, reach)
        console.print(table, highlight=False)
        if list_providers:
            console.print(_providers_table(), highlight=False)
    if unreachable:
        raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command()(models)
