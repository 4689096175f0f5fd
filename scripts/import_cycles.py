"""Report import cycles among crag's modules and packages (strongly connected components).

    python scripts/import_cycles.py             # modules and packages, every import
    python scripts/import_cycles.py --top-level # only imports that run when a module loads

Why a script and not a linter: it reads `src/crag` with `ast` (no import runs, so it is safe and
fast) and counts what matters here — an import inside a function still ties two modules
together, so it counts too unless `--top-level` is given; `if TYPE_CHECKING:` imports never run
and never count. "Packages" collapses modules to the first level under crag (`crag.cli`,
`crag.eval`, `crag.config`, ...). Exit status 1 when a cycle is found (`tests/unit` runs it).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def module_names(src: Path = SRC) -> dict[str, Path]:
    """Dotted name → file, for every module under src/crag (`__init__` names its package)."""
    out = {}
    for path in sorted((src / "crag").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module, top_level: bool) -> Iterable[ast.Import | ast.ImportFrom]:
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
        elif top_level and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        else:
            stack.extend(ast.iter_child_nodes(node))


def graph(top_level: bool = False, src: Path = SRC) -> dict[str, set[str]]:
    """Module → the crag modules it imports (`from crag.a import b` is `crag.a.b` when that is
    a module, else `crag.a`)."""
    modules = module_names(src)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        is_pkg = path.name == "__init__.py"
        for node in _imports(ast.parse(path.read_text(), str(path)), top_level):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]  # fmt: skip
            for t in targets:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    edges[name].add(t)
    return edges


def packages(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same graph, modules collapsed to `crag.<first level>`."""
    top = lambda m: ".".join(m.split(".")[:2])  # noqa: E731
    out: dict[str, set[str]] = {}
    for m, ts in edges.items():
        out.setdefault(top(m), set()).update(top(t) for t in ts if top(t) != top(m))
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found, key=lambda c: (-len(c), c))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top-level", action="store_true", help="ignore imports inside functions")
    args = ap.parse_args()
    edges = graph(top_level=args.top_level)
    bad = 0
    for label, g in (("modules", edges), ("packages", packages(edges))):
        found = cycles(g)
        bad += len(found)
        print(f"{label}: {len(g)}, import cycles: {len(found)}")
        for comp in found:
            print("  " + " <-> ".join(comp))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
