"""The `retrolua` package's shape, read from its source with `ast` (no emulator needed): its modules
import one another without a circle, and the environments use only public names of what they build
on (env.py of `Emulator`, vector.py of `RetroluaEnv`).
Run with `build/venv/bin/python -m pytest Tests/python/test_structure.py`."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "python", "retrolua")
MODULES = sorted(name[:-3] for name in os.listdir(PACKAGE) if name.endswith(".py"))


def _tree(module):
    with open(os.path.join(PACKAGE, module + ".py"), encoding="utf-8") as file:
        return ast.parse(file.read(), module + ".py")


def _imports(module):
    """The package's modules `module` imports, wherever the import is (a function's too): `from . import
    x` and `from .x import y` name x, `import retrolua.x` and `from retrolua.x import y` too."""
    found = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 or (node.level == 0 and node.module and node.module.split(".")[0] == "retrolua"):
                parts = (node.module or "").split(".")[(0 if node.level else 1):]
                if parts and parts[0]:
                    found.add(parts[0])
                else:  # `from . import x, y`: each a module, or a name of the package's __init__
                    found.update(alias.name if alias.name in MODULES else "__init__" for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "retrolua":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
    return found & set(MODULES)


def _cycle(graph):
    """A circle of imports in `graph` (module -> modules it imports), as a list, or None."""
    state = {}

    def visit(module, path):
        state[module] = "open"
        for other in sorted(graph[module]):
            if state.get(other) == "open":
                return path[path.index(other):] + [other]
            if other not in state:
                found = visit(other, path + [other])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_package_modules_import_one_another_without_a_circle():
    graph = {module: _imports(module) - {module} for module in MODULES}
    assert "env" in graph["registration"] and "env" in graph["vector"]  # the parser sees imports at all
    assert _cycle(graph) is None, "an import circle: " + " -> ".join(_cycle(graph))


def _private_members(module, class_name):
    """The `_`-names (not dunders) a class defines, or a base class of it in the package: its methods and
    the attributes it sets on self or declares."""
    (cls,) = [node for node in _tree(module).body if isinstance(node, ast.ClassDef) and node.name == class_name]
    names = set()
    for base in cls.bases:
        for other in MODULES:
            if isinstance(base, ast.Name) and any(isinstance(node, ast.ClassDef) and node.name == base.id
                                                  for node in _tree(other).body):
                names |= _private_members(other, base.id)
    for node in ast.walk(cls):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if name.startswith("_") and not name.endswith("__")}


def _foreign_private_uses(module, private):
    """(line, name) of each attribute of `private` that `module` reads on anything but `self`."""
    uses = []
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.Attribute) and node.attr in private:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                uses.append((node.lineno, node.attr))
    return uses


def test_private_members_are_found():
    emulator = _private_members("emulator", "Emulator")
    assert {"_send", "_step_request", "_reply_header", "_sock"} <= emulator
    assert "send_step" not in emulator and "__init__" not in emulator


@pytest.mark.parametrize("module, owner, class_name", [("env", "emulator", "Emulator"),
                                                       ("vector", "env", "RetroluaEnv"),
                                                       ("vector", "emulator", "Emulator"),
                                                       ("_lanes", "env", "RetroluaEnv"),
                                                       ("_lanes", "emulator", "Emulator"),
                                                       ("pool", "env", "RetroluaEnv"),
                                                       ("pool", "emulator", "Emulator"),
                                                       ("sb3", "pool", "RetroluaPool")])
def test_an_env_uses_only_public_names_of_what_it_builds_on(module, owner, class_name):
    assert _foreign_private_uses(module, _private_members(owner, class_name)) == []


def test_env_touches_nothing_private_of_its_emulator():
    # Whatever the name: no `….emu._x` / `emu._x` in env.py.
    uses = [(node.lineno, node.attr) for node in ast.walk(_tree("env"))
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.endswith("__")
            and ((isinstance(node.value, ast.Attribute) and node.value.attr in ("emu", "em"))
                 or (isinstance(node.value, ast.Name) and node.value.id in ("emu", "em", "emulator")))]
    assert uses == []


def test_vector_imports_no_private_name_of_env():
    names = [alias.name for node in ast.walk(_tree("vector")) if isinstance(node, ast.ImportFrom)
             and node.level == 1 and node.module == "env" for alias in node.names]
    assert names and not [name for name in names if name.startswith("_")]
