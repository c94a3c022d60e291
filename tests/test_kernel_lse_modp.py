"""The kernel's modular design check (verify/kernel/lse.py, hessian-modp / gradient-modp) on the paths of its
packed sums: integer weights n_t = D w_t (huge numerators reduced mod p, several machine words per slot), the
exponents shifted by their least value (negative and rational atoms, q > 1; the gradient shifted back), laws of
unequal atom counts (segment sums), several points.  Each minor's determinant is compared with a direct
formula modulo p (weights w_t mod p, tilted weights, moments), and a forged determinant is refused."""

from fractions import Fraction as F

import pytest
from flint import nmod_mat

from verify.kernel import _laws as L, lse
from verify.kernel._read import Rejected


def _reference(laws, p, q, Z, rows, hessian):
    out = []
    for z in Z:
        cols = []
        for l in laws:
            A = [[int(x * q) for x in a] for a in l["atoms"]]
            w = [x.numerator * pow(x.denominator, -1, p) % p for x in l["weights"]]
            t = [wi * _mono(z, a, p) % p for wi, a in zip(w, A)]
            s = pow(sum(t) % p, -1, p)
            P = [x * s % p for x in t]
            d = len(z)
            g = [sum(pk * a[j] for pk, a in zip(P, A)) % p for j in range(d)]
            if hessian:
                cols.append([(sum(pk * a[i] * a[j] for pk, a in zip(P, A)) - g[i] * g[j]) % p
                             for i in range(d) for j in range(i, d)])
            else:
                cols.append(g)
        out.extend(list(r) for r in zip(*cols))
    M = [out[r] for r in rows]
    return int(nmod_mat(M, p).det())


def _mono(z, a, p):
    v = 1
    for zj, e in zip(z, a):
        v = v * pow(zj, e % (p - 1), p) % p
    return v


BIG = 10 ** 40
LAWS = [   # weights with 41-digit numerators (their integer forms n_t exceed p), rational and negative atoms
    {"family": "discrete", "atoms": [["-7/2", "3"], ["5", "-1/2"], ["0", "0"]],
     "weights": [f"{BIG + 1}/{3 * BIG}", f"{BIG - 1}/{2 * BIG}", f"{BIG + 1}/{6 * BIG}"]},
    {"family": "discrete", "atoms": [["-9", "4"], ["1/2", "1/2"]], "weights": ["1/7", "6/7"]},
    {"family": "discrete", "atoms": [["2", "-3"], ["-5", "5"], ["3/2", "0"], ["0", "7"]]},
    {"family": "discrete", "atoms": [["1", "1"], ["-1", "-1"], ["11/2", "-6"]], "weights": ["1/2", "1/3", "1/6"]},
]


@pytest.mark.parametrize("p", [2147483647, 10007, 2 ** 61 - 1])
@pytest.mark.parametrize("variant", ["hessian-modp", "gradient-modp"])
def test_modp_shifted_integer_weight_sums_agree_with_the_direct_formula(p, variant):
    laws = L.read_laws(LAWS)
    hess = variant.startswith("hessian")
    per, q = (3 if hess else 2), 2
    rows = [0, 1, 2, 4] if hess else [0, 1, 3, 4]
    Z = [[3, 5], [7, 2], [11, 13]][:max(r // per for r in rows) + 1]
    det = _reference(laws, p, q, Z, rows, hess)
    assert det != 0
    cert = {"variant": variant, "prime": p, "q": q, "points": Z, "rows": rows, "det": det}
    modulo = "affine" if hess else "constants"
    assert lse._modp(laws, modulo, cert, "c") == f"{variant}: rank 4 modulo {p}"
    with pytest.raises(Rejected, match=r"c\.det: the minor's determinant modulo p is"):
        lse._modp(laws, modulo, dict(cert, det=(det + 1) % p), "c")
    with pytest.raises(Rejected, match=r"c\.q: q times the atoms of law 0 are not integers"):
        lse._modp(laws, modulo, dict(cert, q=1), "c")


def _cert(p=2147483647):
    laws = L.read_laws(LAWS)
    rows, Z = [0, 1, 2, 4], [[3, 5], [7, 2]]
    det = _reference(laws, p, 2, Z, rows, True)
    return laws, {"variant": "hessian-modp", "prime": p, "q": 2, "points": Z, "rows": rows, "det": det}


def test_a_handed_determinant_serves_only_the_very_same_minor_once():
    """det_mod_handed (the decision's determinant of its minor) is taken by the next modular check, which uses
    it only for exactly the matrix it computes itself: a handed value of another matrix (the identity, det 1,
    against a certificate recording det 1) or of another prime is ignored, a forged recorded det is still
    refused, and the value is gone after one check."""
    laws, cert = _cert()
    p = cert["prime"]
    lse._HANDED.clear()
    lse._spent.clear()
    assert lse._modp(laws, "affine", cert, "c") == f"hessian-modp: rank 4 modulo {p}"
    assert not lse._HANDED
    other = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    forged = dict(cert, det=1)
    lse.det_mod_handed(other, p)                      # det 1, for another matrix
    lse._spent.clear()
    with pytest.raises(Rejected, match=r"c\.det: the minor's determinant modulo p is"):
        lse._modp(laws, "affine", forged, "c")
    assert not lse._HANDED                            # taken (and not used)
    lse.det_mod_handed(other, 10007)
    lse._spent.clear()
    assert lse._modp(laws, "affine", cert, "c") == f"hessian-modp: rank 4 modulo {p}"   # another prime: ignored
    with pytest.raises(Rejected, match=r"c\.det: the minor's determinant modulo p is"):
        lse._spent.clear()
        lse._modp(laws, "affine", dict(cert, det=(cert["det"] + 1) % p), "c")


def test_a_handed_determinant_of_the_same_minor_is_used_and_a_later_change_of_its_lists_is_not_seen():
    """The handed key is a copy: changing the caller's lists after handing does not change what is matched."""
    laws, cert = _cert()
    p = cert["prime"]
    rows = [[5, 1], [2, 7]]
    assert lse.det_mod_handed(rows, p) == 33
    rows[0][0] = 6                                    # the caller changes its list: the key is the old matrix
    assert lse._det_mod([[6, 1], [2, 7]], p) == 40    # not the handed value (33): computed
    assert lse.det_mod_handed([[5, 1], [2, 7]], p) == 33
    assert lse._det_mod([[5, 1], [2, 7]], p) == 33 and not lse._HANDED
