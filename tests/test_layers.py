"""The package's folders are its layers: imports only go downwards, no circles.

ARCHITECTURE.md lists the sub-packages from the bottom up; a module may import
from its own sub-package and the ones below it, never from above, and no
module imports itself through others (lazy imports inside functions count).
Every module stays at most about 600 lines.
"""

import ast
import pathlib

import pytest

import subroc_ext

PACKAGE = pathlib.Path(subroc_ext.__file__).parent
#: Bottom to top, as in ARCHITECTURE.md; "exceptions" is a module of the top package, and so is
#: "__main__" (``python -m subroc_ext``: the command line, above it).
LAYERS = ["exceptions", "utils", "metrics", "scoring", "inputs", "objective", "engine",
          "inference", "workflow", "reporting", "demo", "cli", "__main__"]
MAX_LINES = 650


def _modules():
    """Dotted name below subroc_ext -> path, for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name):
    """The module a dotted name below subroc_ext refers to (a module, or a name in a package)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _imports(module, path):
    """Modules of subroc_ext that ``module`` imports, anywhere in its code."""
    is_package = path.name == "__init__.py"
    here = module.split(".") if module else []
    package = here if is_package else here[:-1]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.split(".")[0] == "subroc_ext":
                stem = node.module.partition(".")[2]
            else:
                continue
            for alias in node.names:
                full = f"{stem}.{alias.name}" if stem else alias.name
                targets.add(full if full in MODULES else _resolve(stem))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "subroc_ext":
                    targets.add(_resolve(alias.name.partition(".")[2]))
    return {t for t in targets if t != module}


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _layer(module):
    return LAYERS.index(module.split(".")[0]) if module else len(LAYERS)


def test_every_module_is_in_a_layer():
    outside = [m for m in MODULES if m and m.split(".")[0] not in LAYERS]
    assert outside == [], f"modules outside the layers of ARCHITECTURE.md: {outside}"


def test_layers_import_only_downwards():
    upward = [
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if module  # the package's __init__ gathers the public API from every layer
        for target in targets
        if target and _layer(target) > _layer(module)
    ]
    assert upward == []


def test_only_the_entry_point_imports_the_package_face():
    # the face (subroc_ext/__init__.py) gathers every layer: a module below it that imports it runs back up
    assert [module for module, targets in GRAPH.items() if "" in targets and module != "__main__"] == []


def _private_imports(path):
    """``module: name`` of each private name ``path`` imports from a module of subroc_ext."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("subroc_ext")):
            found += [f"{node.module}: {alias.name}" for alias in node.names
                      if alias.name.startswith("_") and not alias.name.endswith("__")]
    return found


def test_no_private_name_crosses_a_module():
    crossing = {module: names for module, path in MODULES.items() if (names := _private_imports(path))}
    assert crossing == {}


def test_no_import_circle():
    state, stack, circles = {}, [], []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(GRAPH[module]):
            if target == "" or target not in GRAPH:
                continue
            if state.get(target) == "open":
                circles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(GRAPH):
        if module and module not in state:
            visit(module)
    assert circles == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size(module):
    lines = MODULES[module].read_text().count("\n")
    assert lines <= MAX_LINES, f"{module} has {lines} lines; split it by job"


def test_the_graph_sees_imports():
    # the checks above are only as good as the graph: spot-check known edges
    assert "scoring.measures" in GRAPH["objective.quality"]
    assert "exceptions" in GRAPH["inference.significance"]
    assert "metrics.kernels" in GRAPH["scoring.measures"]
