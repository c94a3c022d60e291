"""LaTeX of the five law families (notebook display: ``_repr_latex_`` / ``_repr_markdown_``).

>>> from verify.laws import Discrete
>>> latex(Discrete([[0], [1]]))
'\\\\frac{1}{2}\\\\,\\\\delta_{(0)} + \\\\frac{1}{2}\\\\,\\\\delta_{(1)}'
"""

from __future__ import annotations

import sympy

from .cgf import rational

__all__ = ["latex"]


def _lat(q) -> str:
    return sympy.latex(rational(q))


def _lat_vec(v) -> str:
    return "(" + ", ".join(_lat(x) for x in v) + ")"


def _lat_mat(S) -> str:
    return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(_lat(x) for x in row) for row in S) + r"\end{pmatrix}"


def latex(law) -> str:
    """The law in LaTeX (no surrounding ``$``)."""
    fam = law.family
    if fam == "discrete":
        return " + ".join(f"{_lat(w)}\\,\\delta_{{{_lat_vec(a)}}}" for a, w in zip(law.atoms, law.weights))
    if fam == "uniform_cube":
        return (rf"\mathrm{{Unif}}\left({_lat_vec(law.center)} + [-{_lat(law.radius)}, {_lat(law.radius)}]"
                rf"^{{{law.dim}}}\right)")
    if fam == "laplace":
        return rf"\mathrm{{SL}}\left({_lat_vec(law.mean)}, {_lat_mat(law.cov)}\right)"
    if fam == "gaussian":
        return rf"\mathcal{{N}}\left({_lat_vec(law.mean)}, {_lat_mat(law.cov)}\right)"
    if fam == "gaussian_mixture":
        return (rf"\tfrac12\mathcal{{N}}(c + a u, \Sigma) + \tfrac12\mathcal{{N}}(c - a u, \Sigma),\ "
                rf"a = {_lat(law.separation)},\ u \propto {_lat_vec(law.direction)},\ "
                rf"c = {_lat_vec(law.center)},\ \Sigma = {_lat_mat(law.cov)}")
    return sympy.latex(sympy.Symbol(type(law).__name__))
