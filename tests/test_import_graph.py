"""The package's internal import graph has no cycle.

The graph is built statically: every module of ``logicrules`` is parsed and each
``import logicrules...``, ``from logicrules... import`` and relative import becomes an edge, at
module level and inside functions alike (a function-level import that breaks a cycle at import
time is still a cycle of the design). Imports under ``if TYPE_CHECKING:`` are left out: they
never run. ``from package import name`` is an edge to the submodule when ``name`` is one, else
to the package itself (its ``__init__``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

import logicrules

def _modules(root: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``) for every module under root/package."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module):
    """(node, inside a function) for every import statement that can run."""
    def walk(node: ast.AST, lazy: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    yield from walk_one(other, lazy)
                continue
            yield from walk_one(child, lazy)

    def walk_one(node: ast.AST, lazy: bool):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, lazy
        yield from walk(node, lazy or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    yield from walk(tree, False)


def import_graph(root: Path, package: str) -> nx.DiGraph:
    """Directed graph of the internal imports of ``package`` (a folder under ``root``).

    Each edge carries ``lines``: a list of (line number, function-level) of the imports behind it.
    """
    modules = _modules(root, package)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)

    def owner(target: str) -> str | None:
        while target not in modules and "." in target:
            target = target.rpartition(".")[0]
        return target if target in modules else None

    for name, (path, is_package) in modules.items():
        here = name if is_package else name.rpartition(".")[0]
        for node, lazy in _imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names]
            else:
                module = node.module or ""
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names]
            for target in targets:
                if target != package and not target.startswith(package + "."):
                    continue
                imported = owner(target)
                if imported is None or imported == name:
                    continue
                if not graph.has_edge(name, imported):
                    graph.add_edge(name, imported, lines=[])
                if (node.lineno, lazy) not in graph.edges[name, imported]["lines"]:
                    graph.edges[name, imported]["lines"].append((node.lineno, lazy))
    return graph


def _where(line: int, lazy: bool) -> str:
    return f"{line} in a function" if lazy else str(line)


def cycles(graph: nx.DiGraph) -> list[str]:
    """One readable line per strongly connected group of modules: its modules and one cycle."""
    found = []
    for group in nx.strongly_connected_components(graph):
        if len(group) < 2:
            continue
        cycle = nx.find_cycle(graph.subgraph(group))
        steps = [f"{a} -> {b} (line {', '.join(_where(line, lazy) for line, lazy in graph.edges[a, b]['lines'])})"
                 for a, b in cycle]
        found.append(f"import cycle among {sorted(group)}: " + "; ".join(steps))
    return sorted(found)


def test_package_has_no_import_cycle():
    root = Path(logicrules.__file__).resolve().parent.parent
    graph = import_graph(root, "logicrules")
    assert graph.number_of_edges() > 100        # the scan sees the package's imports at all
    problems = cycles(graph)
    assert not problems, "\n".join(problems)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("files, expected", [
    # module-level pair
    ({"pkg/__init__.py": "", "pkg/a.py": "from pkg.b import g\n", "pkg/b.py": "from pkg.a import f\n"},
     ["pkg.a", "pkg.b"]),
    # the same cycle hidden behind a function-level import is still found
    ({"pkg/__init__.py": "", "pkg/a.py": "from pkg.b import g\n",
      "pkg/b.py": "def g():\n    from pkg import a\n    return a\n"}, ["pkg.a", "pkg.b"]),
    # relative imports, three modules, one in a subpackage
    ({"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/a.py": "from .sub import c\n",
      "pkg/sub/c.py": "from ..b import x\n", "pkg/b.py": "import pkg.a\n"}, ["pkg.a", "pkg.b", "pkg.sub.c"]),
    # a package __init__ re-exporting a module that imports a name from the package
    ({"pkg/__init__.py": "from pkg.a import f\n", "pkg/a.py": "from pkg import VERSION\n"}, ["pkg", "pkg.a"]),
])
def test_a_cycle_is_found_and_named(tmp_path, files, expected):
    _write(tmp_path, files)
    problems = cycles(import_graph(tmp_path, "pkg"))
    assert len(problems) == 1
    assert problems[0].startswith(f"import cycle among {expected}")


def test_type_checking_imports_and_acyclic_packages_pass(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from pkg.a import f\n",
        "pkg/a.py": "from pkg.b import g\n\ndef f():\n    from pkg import c\n    return c\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n"
                    "else:\n    import os\ng = 1\n",
        "pkg/c.py": "import numpy\n",
    })
    graph = import_graph(tmp_path, "pkg")
    assert set(graph.edges) == {("pkg", "pkg.a"), ("pkg.a", "pkg.b"), ("pkg.a", "pkg.c")}
    assert cycles(graph) == []
