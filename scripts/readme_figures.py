"""Draw the README's figures into docs/img/ (deterministic: same inputs and library versions, same bytes).

    python3 scripts/readme_figures.py [--out DIR]

* ``softmax_rate.png`` -- softmax(lambda) attention falls short of max z by at most W0((n-1)/e)/lambda, and the
  worst input attains the bound (claims T1/T2, docs/softmax.md): certified error balls at the worst point
  s*(lambda) beside the bound, for n = 2, 8 and 64 tokens.
* ``regions.png`` -- exact linear-region counts of the tent-map compositions against 2^L, and the linear
  pieces of a small 2-D maxout network, one colour per piece (claim T10, docs/regions.md).

Only the public API (``import verify``) is used; every number plotted is exact or a ball midpoint.
"""

from __future__ import annotations

import argparse
import pathlib
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402

import verify  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
SAVE = {"dpi": 110, "metadata": {"Software": None}}        # no version string: bytes depend on the drawing only


def tent(depth: int) -> verify.MaxoutNetwork:
    """T^depth, T(h) = 1 - |2h - 1|, as a maxout network (two rank-2 layers per application)."""
    return verify.MaxoutNetwork([([[[2], [-2]]], [[-1, 1]]), ([[[-1], [-1]]], [[1, 1]])] * depth)


PLANE = verify.MaxoutNetwork([([[[1, 2], [-2, 1]], [[2, -1], [1, 1]], [[0, 1], [1, -1]]],
                               [[0, "1/2"], ["1/3", 0], [0, "-1/4"]]),
                              ([[[1, -1, 1], [-1, 2, 0]], [[2, 1, -1], [0, -1, 1]]], [[0, 0], ["1/2", 0]])],
                             readout=([[1, -1]], [0]))


def softmax_rate(path: pathlib.Path) -> None:
    lams = [Fraction(2) ** k for k in range(-2, 11)]
    x = [float(lam) for lam in lams]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for i, n in enumerate((2, 8, 64)):
        bound = [float(verify.sharp_bound(n, lam).mid()) for lam in lams]
        worst = [float(verify.softmax_error_ball(verify.star_point_rational(n, lam), lam).mid()) for lam in lams]
        ax.loglog(x, bound, "-", color=f"C{i}", lw=1.5, label=f"bound W₀((n−1)/e)/λ, n = {n}")
        ax.loglog(x, worst, "o", color=f"C{i}", ms=6, label=f"error at the worst input, n = {n}")
    ax.set_xlabel("softmax scale λ", fontsize=11)
    ax.set_ylabel("max z − softmax attention output", fontsize=11)
    ax.set_title("Softmax approaches hardmax at the sharp rate W₀((n−1)/e)/λ", fontsize=11)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8.5, ncol=1, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, **SAVE)
    plt.close(fig)


def regions(path: pathlib.Path) -> None:
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2))
    Ls = list(range(1, 11))
    counts = [verify.count_regions(tent(L), [[0, 1]]).count for L in Ls]
    ax1.semilogy(Ls, [2 ** L for L in Ls], "k-", lw=1.5, label="2^L")
    ax1.semilogy(Ls, counts, "o", ms=7, label="exact count (tent map composed L times)")
    ax1.semilogy(Ls, [2 * L + 1 for L in Ls], "s--", ms=4, label="one layer of the same width (N + 1)")
    ax1.set_xlabel("depth L", fontsize=11)
    ax1.set_ylabel("linear pieces on [0, 1]", fontsize=11)
    ax1.set_title("Linear regions double with depth", fontsize=11)
    ax1.grid(alpha=0.3, which="both")
    ax1.legend(fontsize=9)
    rc = verify.count_regions(PLANE, [[-1, 1], [-1, 1]])
    for i, reg in enumerate(rc.regions):
        for cell in reg["cells"]:
            colour = plt.cm.tab20(i % 20)      # edges in the piece's colour: no cell edges inside a piece
            ax2.add_patch(Polygon([(float(a), float(b)) for a, b in cell], closed=True,
                                  facecolor=colour, edgecolor=colour, lw=0.5))
    ax2.set_xlim(-1, 1)
    ax2.set_ylim(-1, 1)
    ax2.set_aspect("equal")
    ax2.set_xlabel("x₁", fontsize=11)
    ax2.set_ylabel("x₂", fontsize=11)
    ax2.set_title(f"{rc.count} linear pieces of a 2-D maxout network", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, **SAVE)
    plt.close(fig)


FIGURES = {"softmax_rate.png": softmax_rate, "regions.png": regions}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"), help="directory for the PNG files")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, draw in FIGURES.items():
        draw(out / name)
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
