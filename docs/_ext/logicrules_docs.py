"""Build helpers of the documentation: the API pages written from the public names.

Every public name is documented once, at its shortest public path: a name exported by the
``logicrules`` package is documented as ``logicrules.NAME``; one exported by a subpackage (and
not at the top) as ``logicrules.SUB.NAME``; one listed only in a module's ``__all__`` as
``logicrules.SUB.MODULE.NAME``. The other pages that export it link to that entry, so every
public path of every name appears in the reference, and the pages follow the export tables
(``logicrules/__init__.py``, each subpackage's ``__init__.py``, each module's ``__all__``)
without being edited by hand.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

PACKAGE = "logicrules"


@dataclass
class Scope:
    """One page of the reference: a package or a module and the public names it offers."""

    name: str
    is_package: bool
    names: list[str]
    children: list[str] = field(default_factory=list)


def _public_names(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:  # no export list: the public names the module defines itself
        names = [n for n, v in vars(module).items()
                 if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__]
    return list(dict.fromkeys(names))


def public_scopes(package: str = PACKAGE) -> list[Scope]:
    """Every public package and module under ``package``, packages first, in a stable order."""
    root = importlib.import_module(package)
    found = [(package, True)] + [
        (info.name, info.ispkg)
        for info in pkgutil.walk_packages(root.__path__, package + ".")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    scopes = {name: Scope(name, is_pkg, _public_names(importlib.import_module(name)))
              for name, is_pkg in found}
    for name in scopes:
        parent = name.rpartition(".")[0]
        if parent in scopes:
            scopes[parent].children.append(name)
    # Homes are assigned in this order: the top package, then the subpackages, then modules.
    return sorted(scopes.values(), key=lambda s: (not s.is_package, s.name.count("."), s.name))


def _key(obj: Any, name: str) -> tuple[str, int]:
    return name, id(obj)


def homes(scopes: list[Scope]) -> dict[tuple[str, str], str]:
    """Map (scope, name) to the full path at which that object is documented."""
    first: dict[tuple[str, int], str] = {}
    home: dict[tuple[str, str], str] = {}
    for scope in scopes:
        module = importlib.import_module(scope.name)
        for name in scope.names:
            key = _key(getattr(module, name), name)
            home[scope.name, name] = first.setdefault(key, f"{scope.name}.{name}")
    return home


def _title(text: str, char: str = "=") -> str:
    return f"{text}\n{char * len(text)}\n"


def _summary(module: ModuleType) -> str:
    doc = (module.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def _page(scope: Scope, home: dict[tuple[str, str], str]) -> str:
    module = importlib.import_module(scope.name)
    kind = "package" if scope.is_package else "module"
    lines = [f".. _api-{scope.name}:", "", _title(f"``{scope.name}``"),
             f".. automodule:: {scope.name}", "   :no-members:", "", f".. currentmodule:: {scope.name}", ""]
    own = [n for n in scope.names if home[scope.name, n] == f"{scope.name}.{n}"]
    elsewhere = [n for n in scope.names if n not in own]
    if own:
        lines += [f"Documented in this {kind}:", "", ".. autosummary::", "   :toctree: generated/",
                  "   :nosignatures:", ""]
        lines += [f"   {n}" for n in own]
        lines.append("")
    if elsewhere:
        lines += [f"Also exported by this {kind} (documented at the path given):", ""]
        lines += [f"- ``{scope.name}.{n}``: :obj:`{home[scope.name, n]}`" for n in elsewhere]
        lines.append("")
    if not scope.names:
        lines += [f"This {kind} exports no public names.", ""]
    if scope.children:
        lines += [".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {child}" for child in scope.children]
        lines.append("")
    return "\n".join(lines)


def write_api_pages(folder: Path, package: str = PACKAGE) -> list[Path]:
    """Write ``folder/index.rst`` and one page per public package and module; return them.

    A page whose text did not change is left untouched, so an incremental build stays
    incremental.
    """
    folder.mkdir(parents=True, exist_ok=True)
    scopes = public_scopes(package)
    home = homes(scopes)
    pages = {s.name: _page(s, home) for s in scopes}
    index = [_title("API reference"),
             "Every public name of the package, generated from its export tables. A name "
             "exported at several paths is documented once, at the shortest one, and linked "
             "from the others.", "",
             ".. toctree::", "   :maxdepth: 2", ""]
    index.append(f"   {package}")
    index.append("")
    index += [".. list-table::", "   :header-rows: 1", "", "   * - package or module", "     - what it holds"]
    for s in scopes:
        index += [f"   * - :ref:`{s.name} <api-{s.name}>`",
                  f"     - {_summary(importlib.import_module(s.name)) or '-'}"]
    index.append("")
    pages["index"] = "\n".join(index)
    # Pages and autosummary stubs of names that are no longer public would fail the build
    # (an entry that cannot be imported, a page in no toctree): remove them.
    for stale in folder.glob("*.rst"):
        if stale.stem not in pages:
            stale.unlink()
    documented = set(home.values())
    for stale in (folder / "generated").glob("*.rst"):
        if stale.stem not in documented:
            stale.unlink()
    written = []
    for name, text in pages.items():
        path = folder / f"{name}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    return written


class ExampleArgv:
    """``reset_argv`` of the gallery: each example script runs with ``--fast --out TMP/NAME``.

    A class (not a function) so that Sphinx can pickle the configuration and compare it
    between builds.
    """

    def __init__(self, out: str) -> None:
        self.out = out

    def __call__(self, gallery_conf: dict, script_vars: dict) -> list[str]:
        return ["--fast", "--out", str(Path(self.out) / Path(script_vars["src_file"]).stem)]

    def __repr__(self) -> str:
        return "ExampleArgv()"


def on_config_inited(app: Any, config: Any) -> None:
    """Sphinx hook: write the API pages into ``<source>/api`` before the sources are listed."""
    write_api_pages(Path(app.srcdir) / "api")


def skip_member(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """Sphinx hook: leave out scikit-learn's generated metadata-routing methods.

    ``set_fit_request`` and its kind are made by scikit-learn for every estimator; their
    docstrings point into scikit-learn's own documentation, which this build does not have.
    """
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


# --------------------------------------------------------------------------- measured tables
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "RESULTS.md"


def results_table(heading: str, results: Path = RESULTS) -> list[list[str]]:
    """The first markdown table under the heading ``heading`` of ``benchmarks/RESULTS.md``.

    Returns its rows (header first) as lists of cell texts. The heading is matched exactly,
    without its ``#`` marks; a missing heading or table is an error naming both files, so a
    renamed section fails the docs build instead of showing stale numbers.
    """
    lines = results.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines)
              if line.startswith("#") and line.lstrip("#").strip() == heading]
    if not starts:
        raise ValueError(f"{results} has no heading {heading!r} (named by a results-table directive "
                         "of the docs); update the directive to the heading's new text")
    rows: list[list[str]] = []
    for line in lines[starts[0] + 1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(set(cell) <= set("-: ") for cell in cells):
                rows.append(cells)
        elif rows:
            break
    if not rows:
        raise ValueError(f"no table under the heading {heading!r} of {results}")
    return rows


def _cell(text: str) -> Any:
    """A table cell: plain text with ``code`` spans (markdown backticks) as literals."""
    from docutils import nodes

    paragraph = nodes.paragraph()
    for i, part in enumerate(text.split("`")):
        if part:
            paragraph += nodes.literal(part, part) if i % 2 else nodes.Text(part.replace("**", ""))
    entry = nodes.entry()
    entry += paragraph
    return entry


def _results_directive() -> type:
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class ResultsTable(Directive):
        """``.. results-table:: HEADING``: a table of benchmarks/RESULTS.md, numbers as measured."""

        required_arguments = 1
        final_argument_whitespace = True
        option_spec = {"caption": directives.unchanged}

        def run(self) -> list[Any]:
            heading = self.arguments[0]
            try:
                rows = results_table(heading)
            except ValueError as error:
                raise self.error(str(error)) from None
            width = len(rows[0])
            table = nodes.table(classes=["results-table"])
            caption = self.options.get("caption", heading)
            title = nodes.title(caption, f"{caption} (benchmarks/RESULTS.md, \u201c{heading}\u201d)")
            table += title
            group = nodes.tgroup(cols=width)
            table += group
            group += [nodes.colspec(colwidth=1) for _ in range(width)]
            head, body = nodes.thead(), nodes.tbody()
            for target, block in ((head, rows[:1]), (body, rows[1:])):
                for cells in block:
                    row = nodes.row()
                    row += [_cell(c) for c in (cells + [""] * width)[:width]]
                    target += row
            group += head
            group += body
            return [table]

    return ResultsTable


def setup(app: Any) -> dict[str, Any]:
    """Sphinx extension entry point: the results-table directive and the build hooks."""
    app.add_directive("results-table", _results_directive())
    # Before Sphinx lists the source files and autosummary generates its stubs from them.
    app.connect("config-inited", on_config_inited)
    app.connect("autodoc-skip-member", skip_member)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
