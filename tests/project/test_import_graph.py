"""The package's layers, checked on its source: the engine knows nothing of suites, gates,
pytest or YAML; gates know nothing of pytest; render and report read verdict data only;
and no module imports, directly or through others, a module that imports it back.

Every import counts, lazy ones inside functions included: a cycle that only closes at
run time is still a cycle for the next reader.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_mcptest"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def _import_statements(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """Every import statement of ``path``, lazy ones inside functions included: each file is
    parsed once in this module, however many of its tests read its imports (nothing changes
    the nodes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tuple(node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


def _imports(path: Path, modules=()) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved). In
    ``from package import name``, a ``name`` that is one of ``modules`` is what is imported."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in _import_statements(path):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            subs = {f"{stem}.{alias.name}" for alias in node.names} & set(modules)  # `from . import agent`
            out.update(subs or {stem})
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    out = {name: {m for m in _imports(path, modules) if m in modules and m != name} for name, path in modules.items()}
    # The registry imports each built-in gate's module by name, on first use (importlib):
    # edges no import statement shows, counted all the same.
    from pytest_mcptest.gates import BUILTIN_SECTIONS

    out["pytest_mcptest.gates"] |= {f"pytest_mcptest.gates.{kind}" for kind in BUILTIN_SECTIONS}
    return out


@pytest.fixture(scope="module")
def external() -> dict[str, set[str]]:
    return {_module_name(p): {m.split(".")[0] for m in _imports(p)} for p in PACKAGE.rglob("*.py")}


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_graph_is_read(graph):
    assert "pytest_mcptest.gates.scenario" in graph["pytest_mcptest.gates"]
    assert "pytest_mcptest.engine.world" in graph["pytest_mcptest.gates.scenario"]


def test_engine_knows_nothing_of_suites_gates_pytest_or_yaml(graph, external):
    for name in graph:
        if not _under(name, "pytest_mcptest.engine"):
            continue
        inside = sorted(m for m in graph[name] if not _under(m, "pytest_mcptest.engine"))
        assert inside == [], f"{name} imports {inside}"
        assert not external[name] & {"pytest", "yaml", "_pytest"}, name


def test_gates_import_no_pytest(external):
    for name, modules in external.items():
        if _under(name, "pytest_mcptest.gates"):
            assert not modules & {"pytest", "_pytest"}, name


def test_render_and_report_read_verdict_data_not_evaluation(graph):
    for name in ("pytest_mcptest.report.render", "pytest_mcptest.report.document"):
        assert not any(_under(m, "pytest_mcptest.gates.evaluate") or _under(m, "pytest_mcptest.gates")
                       for m in graph[name]), (name, graph[name])


def test_no_cycles(graph):
    """Depth-first search; a back edge is a cycle, reported with its path."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


# The package's floors, lowest first: a module imports only from its own package or a lower
# floor (README.md, "Developing"). Packages on one floor do not import each other.
FLOORS = [
    {"engine"},
    {"errors", "text", "gc_pause", "redact", "option_types"},
    {"formats"},
    {"suite"},
    {"mcp"},
    {"record"},
    {"importers", "live"},
    {"gates"},
    {"report", "authoring"},
    {"plugin", "cli"},
]


def _floor(module: str) -> tuple[int, str] | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[1] == "__main__":
        return None  # the package itself (its lazy public names) and __main__ sit above every floor
    for level, names in enumerate(FLOORS):
        if parts[1] in names:
            return level, parts[1]
    raise AssertionError(f"{module}: no floor is named for it; add its package to FLOORS")


def test_imports_run_down_the_floors(graph):
    upward = []
    for name, imported in sorted(graph.items()):
        here = _floor(name)
        if here is None:
            continue
        for other in sorted(imported):
            there = _floor(other)
            if there is None:
                continue
            if there[0] > here[0] or (there[0] == here[0] and there[1] != here[1] and here[0] != 1):
                upward.append(f"{name} -> {other}")
    assert upward == []


def test_every_public_name_resolves():
    """The package's lazy public names point at modules that exist (a move once left them behind)."""
    import pytest_mcptest

    assert [n for n in pytest_mcptest.__all__ if getattr(pytest_mcptest, n, None) is None] == []


def test_no_private_name_crosses_a_package():
    """A name with a leading underscore is its module's own: another package that needs it
    asks for it to be made public (live/ once took four of mcp/client.py's)."""
    crossing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in _import_statements(path):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                source = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("pytest_mcptest."):
                continue
            home = source.split(".")[1]
            private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
            if private and name.split(".")[1:2] != [home]:
                crossing.append(f"{name} takes {', '.join(private)} from {source}")
    assert crossing == []


def test_the_tests_folders_mirror_the_package():
    """Each package folder has its tests in the folder of the same name under tests/, and every
    test file sits in such a folder (or in project/, foundations/, hostile/), never at the top."""
    tests = Path(__file__).resolve().parents[1]
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= {p.name for p in tests.iterdir() if p.is_dir()}, "a package folder without its tests folder"
    assert not list(tests.glob("test_*.py")), "a test file at the top of tests/"
    allowed = folders | {"project", "foundations", "hostile"}
    homes = {p.parent.relative_to(tests).parts[0] for p in tests.rglob("test_*.py") if "data" not in p.parts}
    assert homes <= allowed, homes - allowed


def test_no_module_takes_another_as_its_packages_attribute():
    """``from . import store`` gives the package's attribute ``store`` when it has one, without
    asking sys.modules: after pytester's in-process run dropped the modules it imported, that
    attribute is the dropped copy, and the module then judges with stale classes (the suite
    cache could not pickle their blocks). A module is imported by its name
    (``import pytest_mcptest.record.store as store``) or its names are (``from .store import save``)."""
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    taken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in _import_statements(path):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                source = ".".join(base + ([node.module] if node.module else []))
                taken += [f"{name}:{node.lineno} from {source} import {alias.name}" for alias in node.names
                          if f"{source}.{alias.name}" in modules]
    assert taken == []
