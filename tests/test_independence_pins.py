"""Pins for verify/decide/independence.py (mutation testing): size limits at their boundaries with the
field named, defaults, the lattice screen, the >64-law branch and check_relation's exact/ball branches."""

import time
from fractions import Fraction as F

import pytest

from verify.decide.independence import (MAX_BALL_LAWS, MAX_LAWS, check_relation, independent_mod_affine,
                                        parse_laws)
from verify.errors import InputError, SizeLimitError
from verify.laws import Discrete, Gaussian, SymmetricLaplace, UniformCube

MU, NU, W = Discrete([[0], [1]]), Discrete([[0], [2]]), Discrete([[0], [1], [2], [3]])   # (1+z)(1+z^2) = W
G1, G2 = Gaussian([[1]], [1]), Gaussian([[1]], [0])                                        # Lambda_1 - Lambda_2 = theta


def test_law_count_limit_boundary():
    assert MAX_LAWS == 512
    assert len(parse_laws([MU] * 512)) == 512
    with pytest.raises(SizeLimitError, match=r"^dists.*513 laws exceed the limit 512"):
        parse_laws([MU] * 513)


def test_single_law_and_dimension_mismatch_message():
    assert parse_laws([MU]) == [MU]
    with pytest.raises(InputError, match=r"^dists\[1\]: has dimension 2, dists\[0\] has dimension 1"):
        parse_laws([MU, Discrete([[0, 0], [1, 1]])])
    assert independent_mod_affine([MU]).proved


def test_ladder_bounds():
    assert independent_mod_affine([MU, NU], ladder=(16,)).proved
    assert independent_mod_affine([MU, NU], ladder=(4096,)).proved
    for bad in [(15,), (4097,), (), (True,), (64.0,)]:
        with pytest.raises(InputError, match="^ladder"):
            independent_mod_affine([MU, NU], ladder=bad)


def test_seed_bounds():
    assert independent_mod_affine([MU, NU], seed=0).proved
    assert independent_mod_affine([MU, NU], seed=2 ** 63 - 1).proved
    for bad in (-1, 2 ** 63, True, "1"):
        with pytest.raises(InputError, match="^seed"):
            independent_mod_affine([MU, NU], seed=bad)


def test_box_must_be_positive():
    with pytest.raises(InputError, match=r"^box: must be > 0, got 0"):
        independent_mod_affine([MU, NU], box=0)
    with pytest.raises(InputError, match="^box"):
        independent_mod_affine([MU, NU], box=-1)
    r = independent_mod_affine([MU, NU], box="1/1000")
    assert r.proved and r.evidence["search"]["box"] == F(1, 1000)


def test_method_and_claim_refused():
    with pytest.raises(InputError, match="^method"):
        independent_mod_affine([MU, NU], method="fast")
    with pytest.raises(InputError, match="^claim"):
        independent_mod_affine([MU, NU], claim="X1")


def test_s1_direction_computed_up_to_sixteen_laws():
    laws16 = [Discrete([[0], [k]]) for k in range(1, 17)]
    r = independent_mod_affine(laws16)
    assert r.proved and r.evidence["S1_direction"] is not None
    r = independent_mod_affine(laws16 + [Discrete([[0], [17]])])
    assert r.proved and r.evidence["S1_direction"] is None


def test_one_dimensional_rational_hessian_family():
    r = independent_mod_affine([SymmetricLaplace([[1]]), SymmetricLaplace([[2]])])
    assert r.proved and r.method.value == "exact" and r.certificate["variant"] == "hessian-exact"


def test_lattice_screen_refutes_without_the_kernel_search():
    r = independent_mod_affine([MU, NU, W], search=False)
    assert r.refuted and r.evidence["relation"]["source"] == "lattice-criterion"
    assert r.certificate["c"] == [1, 1, -1]


def test_more_than_64_laws_use_the_square_design():
    """Beyond MAX_BALL_LAWS the preconditioned design gives way to one square determinant (it used to be
    skipped, INCONCLUSIVE); the kernel re-checks the minor."""
    assert MAX_BALL_LAWS == 64
    r = independent_mod_affine([UniformCube(F(k, 4)) for k in range(1, 66)], search=False, lattice=False)
    assert r.proved and r.certificate["variant"] == "design-ball" and len(r.certificate["points"]) == 67
    assert "square 67x67" in r.certificate["summary"]


def test_timing_is_the_elapsed_time():
    t0 = time.perf_counter()
    results = [independent_mod_affine([MU, NU]), independent_mod_affine([MU, NU, W]),
               independent_mod_affine([UniformCube(F(k, 4)) for k in range(1, 66)], search=False)]
    elapsed = time.perf_counter() - t0
    for r in results:
        assert 0 <= r.timing["seconds"] <= elapsed + 0.01


def test_check_relation_discrete_with_affine_part():
    assert check_relation([MU, NU, W], (1, 1, -1), a=(0,)).proved
    r = check_relation([MU, NU, W], (1, 1, -1), a=(1,))
    assert r.refuted
    assert check_relation([MU, NU, W], (1, 1, -1)).proved


def test_check_relation_records_a():
    assert check_relation([MU, NU, W], (1, 1, -1), a=(0,)).parameters["a"] == [0]
    assert "a" not in check_relation([MU, NU, W], (1, 1, -1)).parameters


def test_check_relation_rescaled_continuous_relation():
    # c = (1/2, -1/2) is rescaled by s = 2 to (1, -1); the affine part scales with it
    r = check_relation([G1, G2], ("1/2", "-1/2"), a=("1/2",))
    assert r.proved and r.parameters["a"] == [F(1, 2)]
    assert not check_relation([G1, G2], ("1/2", "-1/2"), a=("1/4",)).proved


def test_check_relation_positive_constant_difference_refuted_by_value():
    r = check_relation([G1, G2], (1, -1), a=(1,), C="1/2")      # difference = log 2 > 0 everywhere
    assert r.refuted and "step" not in r.certificate and F(r.certificate["value"]) > 0
    r = check_relation([G1, G2], (1, -1), a=(1,), C=2)          # difference = -log 2 < 0 everywhere
    assert r.refuted and "step" not in r.certificate and F(r.certificate["value"]) < 0
    with pytest.raises(InputError, match="^C"):
        check_relation([G1, G2], (1, -1), a=(1,), C=0)


def test_the_garbage_collector_state_is_restored_after_a_decision():
    """independent_mod_affine pauses the cyclic collector for its run only: enabled before -> enabled after
    (also after bad input), disabled before -> still disabled."""
    import gc

    assert gc.isenabled()
    assert independent_mod_affine([MU, NU]).proved
    assert gc.isenabled()
    with pytest.raises(InputError, match="modulo"):
        independent_mod_affine([MU, NU], modulo="linear")
    assert gc.isenabled()
    gc.disable()
    try:
        assert independent_mod_affine([MU, NU]).proved
        assert not gc.isenabled()
    finally:
        gc.enable()
