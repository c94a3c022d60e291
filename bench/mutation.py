"""Mutation testing of the modules that decide verdicts (issue 8, item 4): a small AST mutator.

    python3 bench/mutation.py                          # default modules, up to 30 mutants each
    python3 bench/mutation.py --modules verify/arith/ball.py --max 60 --json mut.json

Safety: the repository is never modified.  The script copies verify/, proofs/, tests/ and the
config into a private temporary folder, mutates files only there (restoring each after its run),
runs the selected tests of the copy with ``PYTHONPATH`` pointing at it (which wins over the editable
install), and deletes the folder at the end (also on Ctrl-C).

Mutation operators: comparison swaps (< <=, > >=, == !=, is / is not, in / not in), and <-> or,
dropping ``not``, True <-> False, integer constants n -> n + 1, + <-> -, * -> /, and the verdicts
PROVED <-> REFUTED, INCONCLUSIVE -> PROVED.  A mutant is *killed* when the selected tests fail (or time
out); the kill rate is killed / mutants.  Mutants are sampled evenly over each module's sites
(deterministic).  Survivors are listed with line numbers so they can be inspected: some are
equivalent mutants (no behaviour change), which no test can kill.
"""

from __future__ import annotations

import argparse
import ast
import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# module -> tests that exercise it (globs relative to the repository; missing ones are ignored)
TARGETS = {
    "verify/arith/ball.py": ["tests/test_engines.py", "tests/test_bad_input_decisions.py",
                               "proofs/lse/n7_ntk_gram.py", "tests/test_t2*.py"],
    "verify/arith/exact.py": ["tests/test_engines.py", "tests/test_bad_input_decisions.py",
                                "proofs/maxout/t3_onehot_gate.py", "tests/test_objects*.py"],
    "verify/results.py": ["tests/test_results.py", "tests/test_bad_input_decisions.py", "tests/test_audit_registry.py"],
    "verify/arith/context.py": ["tests/test_arith_context.py", "tests/test_objects*.py", "tests/test_tracer*.py",
                                 "proofs/maxout/t6_maxout_emulation.py"],
    "verify/checks/t3_onehot_gate.py": ["proofs/maxout/t3_onehot_gate.py", "tests/test_t3*.py"],
    "verify/decide/emulation.py": ["tests/test_t6*.py", "proofs/maxout/t6_maxout_emulation.py"],
    "verify/decide/ntk.py": ["tests/test_ntk*.py", "tests/test_n7*.py", "proofs/lse/n7_ntk_gram.py"],
    "verify/decide/independence.py": ["tests/test_independence*.py", "tests/test_n3_n6_checks.py", "proofs/lse/n3_*.py"],
    "verify/checks/t2_softmax_bound.py": ["tests/test_t2*.py"],
    # the kernel (issue 11): each module's own tests plus the generic whole-Result mutation test
    "verify/kernel/__init__.py": ["tests/test_kernel_core.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/_read.py": ["tests/test_kernel_core.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/_ball.py": ["tests/test_kernel_core.py", "tests/test_kernel_ntk.py"],
    "verify/kernel/_cells.py": ["tests/test_kernel_emulation*.py", "tests/test_kernel_regions*.py",
                                "tests/test_kernel_mutations.py"],
    "verify/kernel/emulation.py": ["tests/test_kernel_emulation*.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/regions.py": ["tests/test_kernel_regions*.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/casesplit.py": ["tests/test_kernel_casesplit*.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/softmax.py": ["tests/test_kernel_softmax*.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/symbolic.py": ["tests/test_kernel_symbolic*.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/_laws.py": ["tests/test_kernel_lse*.py", "tests/test_kernel_ntk*.py",
                               "tests/test_kernel_mutations.py"],
    "verify/kernel/lse.py": ["tests/test_kernel_lse*.py", "tests/test_kernel_mutations.py"],
    "verify/kernel/ntk.py": ["tests/test_kernel_ntk*.py", "tests/test_kernel_mutations.py"],
}

_CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_BIN_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div}
_VERDICT_SWAP = {"PROVED": "REFUTED", "REFUTED": "PROVED", "INCONCLUSIVE": "PROVED"}


class Mutator(ast.NodeTransformer):
    """Counts mutation sites in a fixed traversal order; applies the one numbered ``target``."""

    def __init__(self, target: int = -1):
        self.target = target
        self.count = 0
        self.sites = []          # (line, description)
        self.in_docstring_free = True

    def _site(self, node, description) -> bool:
        hit = self.count == self.target
        self.sites.append((getattr(node, "lineno", 0), description))
        self.count += 1
        return hit

    def visit_Compare(self, node):
        self.generic_visit(node)
        for i, op in enumerate(node.ops):
            new = _CMP_SWAP.get(type(op))
            if new and self._site(node, f"{type(op).__name__} -> {new.__name__}"):
                node.ops[i] = new()
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        new = ast.Or if isinstance(node.op, ast.And) else ast.And
        if self._site(node, f"{type(node.op).__name__} -> {new.__name__}"):
            node.op = new()
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and self._site(node, "drop not"):
            return node.operand
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        new = _BIN_SWAP.get(type(node.op))
        if new and self._site(node, f"{type(node.op).__name__} -> {new.__name__}"):
            node.op = new()
        return node

    def visit_Constant(self, node):
        if isinstance(node.value, bool):
            if self._site(node, f"{node.value} -> {not node.value}"):
                return ast.copy_location(ast.Constant(not node.value), node)
        elif isinstance(node.value, int) and abs(node.value) < 10 ** 6:
            if self._site(node, f"{node.value} -> {node.value + 1}"):
                return ast.copy_location(ast.Constant(node.value + 1), node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "Verdict" and node.attr in _VERDICT_SWAP:
            new = _VERDICT_SWAP[node.attr]
            if self._site(node, f"Verdict.{node.attr} -> Verdict.{new}"):
                node.attr = new
        return node

    # never mutate docstrings / __all__ / module metadata
    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return node
        return self.generic_visit(node)

    def visit_Assign(self, node):
        if any(isinstance(t, ast.Name) and t.id.startswith("__") for t in node.targets):
            return node
        return self.generic_visit(node)


def sites_of(source: str) -> list:
    m = Mutator()
    m.visit(ast.parse(source))
    return m.sites


def mutant_source(source: str, index: int) -> str:
    tree = ast.parse(source)
    Mutator(index).visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def _copy_repo(dest: str) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")
    for name in ("verify", "proofs", "tests"):
        shutil.copytree(os.path.join(ROOT, name), os.path.join(dest, name), ignore=ignore)
    for name in ("setup.cfg", "pyproject.toml"):
        if os.path.exists(os.path.join(ROOT, name)):
            shutil.copy2(os.path.join(ROOT, name), os.path.join(dest, name))


def _tests_for(module: str, work: str) -> list:
    files = []
    for pattern in TARGETS.get(module, []):
        files += sorted(os.path.relpath(p, work) for p in glob.glob(os.path.join(work, pattern)))
    dotted = module[:-3].replace("/", ".")
    if dotted.endswith(".__init__"):   # a package's doctests are collected under the package's name
        dotted = dotted[: -len(".__init__")]
    files.append(f"tests/test_doctests.py::test_doctests[{dotted}]")
    return files


def _run_tests(work: str, tests: list, timeout: float) -> tuple:
    env = dict(os.environ, PYTHONPATH=work + os.pathsep + os.environ.get("PYTHONPATH", ""),
               HYPOTHESIS_PROFILE="ci", PYTHONDONTWRITEBYTECODE="1")
    start = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                            "--audit-quick", *tests], cwd=work, env=env, capture_output=True, text=True,
                           timeout=timeout)
        status = "passed" if r.returncode == 0 else ("no-tests" if r.returncode == 5 else "failed")
    except subprocess.TimeoutExpired:
        status = "timeout"
    return status, time.perf_counter() - start


def mutate_module(module: str, work: str, max_mutants: int, log) -> dict:
    path = os.path.join(work, module)
    original = open(path, encoding="utf-8").read()
    tests = _tests_for(module, work)
    # baseline on the unparsed (formatting-normalised) source: must pass, else the module is skipped
    open(path, "w", encoding="utf-8").write(ast.unparse(ast.parse(original)))
    status, base_t = _run_tests(work, tests, 900)
    open(path, "w", encoding="utf-8").write(original)
    if status != "passed":
        return {"module": module, "tests": tests, "status": f"baseline {status}", "mutants": 0, "killed": 0}
    sites = sites_of(original)
    if len(sites) > max_mutants:
        step = len(sites) / max_mutants
        chosen = [int(i * step) for i in range(max_mutants)]
    else:
        chosen = list(range(len(sites)))
    timeout = max(30.0, 4 * base_t + 10)
    killed, survivors, timeouts = 0, [], 0
    try:
        for k in chosen:
            open(path, "w", encoding="utf-8").write(mutant_source(original, k))
            status, _ = _run_tests(work, tests, timeout)
            if status in ("failed", "timeout"):
                killed += 1
                timeouts += status == "timeout"
            else:
                survivors.append({"line": sites[k][0], "mutation": sites[k][1]})
            log(f"  {module}:{sites[k][0]:<5} {sites[k][1]:<34} {'killed' if status != 'passed' else 'SURVIVED'}")
    finally:
        open(path, "w", encoding="utf-8").write(original)
    n = len(chosen)
    return {"module": module, "tests": tests, "status": "ok", "sites": len(sites), "mutants": n, "killed": killed,
            "timeouts": timeouts, "kill_rate": round(killed / n, 3) if n else None, "survivors": survivors,
            "baseline_s": round(base_t, 2)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="AST mutation testing of the verdict-deciding modules")
    p.add_argument("--modules", nargs="*", default=None, help="module paths (default: every TARGETS entry)")
    p.add_argument("--max", type=int, default=30, help="mutants per module (evenly sampled), default 30")
    p.add_argument("--json", metavar="FILE", help="write the per-module results")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    modules = args.modules or [m for m in TARGETS if os.path.exists(os.path.join(ROOT, m))]
    work = tempfile.mkdtemp(prefix="verify-mutation-")
    log = (lambda s: None) if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    results = []
    try:
        _copy_repo(work)
        for module in modules:
            log(f"{module}: mutating a private copy in {work}")
            results.append(mutate_module(module, work, args.max, log))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'module':<40} {'mutants':>8} {'killed':>7} {'rate':>6}  status")
    total_n = total_k = 0
    for r in results:
        rate = f"{r['kill_rate']:.0%}" if r.get("kill_rate") is not None else "-"
        print(f"{r['module']:<40} {r['mutants']:>8} {r['killed']:>7} {rate:>6}  {r['status']}")
        total_n += r["mutants"]
        total_k += r["killed"]
    if total_n:
        print(f"{'total':<40} {total_n:>8} {total_k:>7} {total_k / total_n:>6.0%}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
