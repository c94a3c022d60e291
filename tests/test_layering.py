"""Lower layers never import upper ones (the pipeline is one-way), no claim module imports another and the
import graph of verify/ has no cycle."""

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "verify"
LAYERS = ["arith", "objects", "laws", "constructions", "decide", "checks", "audit", "cli"]
BASE = {"errors", "results", "canonical", "claims", "_version", "kernel"}


def _layer_of(module: str):
    parts = module.split(".")
    if parts[0] != "verify" or len(parts) < 2:
        return None
    return parts[1]


def _import_statements(path: pathlib.Path, package: str):
    """(module, names) for every import statement anywhere in the file: ``from X import a, b`` gives (X, [a, b])
    with X resolved against ``package``, ``import X`` gives (X, [])."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []


def _imports(path: pathlib.Path, package: str):
    for mod, _ in _import_statements(path, package):
        yield mod


# the kernel (the trusted base) may import only these third-party packages, the standard library and itself
KERNEL_THIRD_PARTY = {"flint", "gmpy2", "sympy"}


def test_kernel_imports_nothing_above_the_arithmetic():
    import sys

    stdlib = set(sys.stdlib_module_names)
    bad = []
    kernel = ROOT / "kernel"
    assert (kernel / "__init__.py").exists()
    for path in sorted(kernel.rglob("*.py")):
        package = "verify.kernel"
        for imp in _imports(path, package):
            top = imp.split(".")[0]
            if imp == "verify.kernel" or imp.startswith("verify.kernel."):
                continue
            if top in stdlib or top in KERNEL_THIRD_PARTY or top == "__future__":
                continue
            bad.append(f"{path.name} imports {imp}")
    assert not bad, "\n".join(bad)


def test_one_way_pipeline():
    bad = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        module = ".".join(parts)
        package = module if path.name == "__init__.py" else ".".join(parts[:-1])
        own = _layer_of(module)
        if own == "kernel":
            continue   # test_kernel_imports_nothing_above_the_arithmetic
        if own not in LAYERS:
            own_rank = -1  # base modules may import only base modules
        else:
            own_rank = LAYERS.index(own)
        for imp in _imports(path, package):
            layer = _layer_of(imp)
            if layer is None or layer in BASE or layer == own:
                continue
            if layer in LAYERS and LAYERS.index(layer) > own_rank:
                if own in ("__main__", "pytest_plugin", "strategies") or module == "verify":
                    continue
                bad.append(f"{module} imports {imp}")
    assert not bad, "\n".join(bad)


# -- the module import graph of verify/ (module-level and function-level imports alike) -------------------------
def _modules() -> dict:
    """Dotted name -> path of every module of the package (a package is its ``__init__``)."""
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


@functools.lru_cache(maxsize=None)
def _import_graph() -> dict:
    """module -> the modules of verify/ it imports anywhere in its body.  ``from X import Y`` is an edge to
    the module X.Y when Y is a submodule, else to X; ``import X.Y`` is an edge to X.Y."""
    mods = _modules()
    graph = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        targets = set()
        for mod, names in _import_statements(path, package):
            subs = {f"{mod}.{a}" for a in names} & mods.keys()
            targets |= subs
            if mod in mods and (not names or len(subs) < len(names)):
                targets.add(mod)
        targets.discard(name)
        graph[name] = targets
    return graph


def _cycles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _is_claim_module(name: str) -> bool:
    return name.startswith("verify.checks.") and name.count(".") == 2


def test_no_claim_module_imports_another():
    """A claim module imports decision procedures, never another claim (also not lazily in a function)."""
    graph = _import_graph()
    claims = [m for m in graph if _is_claim_module(m)]
    assert len(claims) >= 21
    bad = [f"{m} imports {t}" for m in sorted(claims) for t in sorted(graph[m])
           if t == "verify.checks" or t.startswith("verify.checks.")]
    assert not bad, "\n".join(bad)


def test_decision_procedures_import_no_claim():
    graph = _import_graph()
    bad = [f"{m} imports {t}" for m in sorted(graph) if m == "verify.decide" or m.startswith("verify.decide.")
           for t in sorted(graph[m]) if t == "verify.checks" or t.startswith("verify.checks.")]
    assert not bad, "\n".join(bad)


def test_strategies_are_a_leaf():
    """verify.strategies (hypothesis strategies over every layer) is for tests only: no module imports it."""
    graph = _import_graph()
    assert "verify.strategies" in graph
    bad = sorted(m for m, targets in graph.items() if "verify.strategies" in targets)
    assert not bad, "\n".join(bad)


def test_no_import_cycle():
    cycles = _cycles(_import_graph())
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_every_import_of_verify_resolves():
    """Every ``from verify.X import a`` / ``import verify.X`` anywhere (also lazily inside a function) names a
    module that exists and, for ``from``, a submodule or a name the module defines: a moved module must not
    leave a stale lazy import behind (regression: the CLI's lazy imports after the decide/ move)."""
    import importlib

    mods = _modules()
    bad = []
    for name, path in sorted(mods.items()):
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for mod, names in _import_statements(path, package):
            if mod != "verify" and not mod.startswith("verify."):
                continue
            if mod not in mods:
                bad.append(f"{name} imports the missing module {mod}")
                continue
            if not names or names == ["*"]:
                continue
            module = importlib.import_module(mod)
            for a in names:
                if f"{mod}.{a}" not in mods and not hasattr(module, a):
                    bad.append(f"{name} imports {a} from {mod}, which does not define it")
    assert not bad, "\n".join(bad)


def test_one_box_parser():
    """Boxes are parsed by verify.arith.exact.parse_box only (the kernel keeps its own reader on purpose)."""
    bad = []
    for name, path in sorted(_modules().items()):
        if name.startswith("verify.kernel"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "box" in node.name.lower() \
                    and any(w in node.name.lower() for w in ("parse", "read")) \
                    and (name, node.name) != ("verify.arith.exact", "parse_box"):
                bad.append(f"{name}.{node.name}")
    assert not bad, "box parsers besides verify.arith.exact.parse_box: " + ", ".join(bad)
