"""The layers point one way: the contracts of pyproject.toml ([tool.importlinter]) are kept, and
no two modules, nor two packages, import each other (a lazy import inside a function counts).
And views stay thin: no function of a views module is longer than VIEW_LINES."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from tests.conftest import ROOT

PACKAGES = ("portal", "sandbox")
# A view reads the request, calls one function of its app and renders: the longest is this long,
# from its `def` to its last line (docstring included, decorators not).
VIEW_LINES = 25


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def test_the_layers_contracts_are_kept():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [lint_imports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_two_modules_import_each_other(graph):
    assert _both_ways(_imports(graph)) == []


def test_no_two_packages_import_each_other(graph):
    between_siblings = {_siblings(importer, imported) for importer, imported in _imports(graph)}
    assert _both_ways(between_siblings - {None}) == []


def _imports(graph: grimp.ImportGraph) -> set[tuple[str, str]]:
    return {
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
    }


def _siblings(importer: str, imported: str) -> tuple[str, str] | None:
    """The two packages (or modules) side by side in one package that hold the importer and the
    imported: portal.jobs.tasks importing portal.operations.logs is portal.jobs importing
    portal.operations. None for a package and a module inside it."""
    one, other = importer.split("."), imported.split(".")
    shared = 0
    while shared < min(len(one), len(other)) and one[shared] == other[shared]:
        shared += 1
    if shared in (len(one), len(other)):
        return None
    return ".".join(one[: shared + 1]), ".".join(other[: shared + 1])


def _both_ways(imports: set[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, b in imports if (b, a) in imports and a < b)


def test_no_function_of_a_views_module_is_longer_than_view_lines():
    too_long = [
        f"{path.relative_to(ROOT)}: {function.name} is {lines} lines long"
        for path in _views_modules()
        for function in _functions(path)
        if (lines := function.end_lineno - function.lineno + 1) > VIEW_LINES
    ]
    assert not too_long, "\n".join(
        [f"Longer than {VIEW_LINES} lines (move their work into their app's modules):", *too_long]
    )


def _views_modules() -> list[Path]:
    """The files named views.py, and those of a views/ package, in the portal and the sandbox."""
    found = [path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
             if path.name == "views.py" or path.parent.name == "views"]  # fmt: skip
    assert len(found) > 10  # the walk found the views
    return sorted(found)


def _functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]  # fmt: skip
