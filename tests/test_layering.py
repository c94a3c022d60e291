"""Lower layers never import upper ones (the pipeline is one-way)."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "verify"
LAYERS = ["arith", "objects", "laws", "constructions", "decide", "checks", "audit", "cli"]
BASE = {"errors", "results", "canonical", "claims", "_version", "kernel"}


def _layer_of(module: str):
    parts = module.split(".")
    if parts[0] != "verify" or len(parts) < 2:
        return None
    return parts[1]


def _imports(path: pathlib.Path, package: str):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name


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
                if own in ("__main__", "pytest_plugin") or module == "verify":
                    continue
                bad.append(f"{module} imports {imp}")
    assert not bad, "\n".join(bad)
