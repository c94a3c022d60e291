"""Byte-identity of the N4, N5 and N6 audits across the speed-ups of the independence path
(verify/decide/independence.py, verify/decide/independence_certificates.py, verify/kernel/lse.py,
verify/kernel/_laws.py): the sha256 of each audit Result's canonical JSON without "timing", "versions",
"float64" entries and the evidence's figure data (:func:`tests.test_casesplit_speed.result_hash`), recorded on
the commit before the speed-ups.  Eleven hashes were re-recorded when the modular certificates' primes moved
below 2^30 (session 24: new primes, so new residues, determinants and points; every verdict unchanged).  Audits that take more than a fraction of a second run only with
VERIFY_HASH_ALL=1 (the audit items of the suite check their verdicts anyway)."""


import pytest

from _pins import HASH_ALL, result_hash
from verify.audit.discovery import audit_modules, audits_of_module
from verify.audit.runner import run_audit

BEFORE = {
    "N4/a-cubes-distinct-radii-F8": "0a19baf61616d8dfb26ec1ccfac7f9c4c66b28ade8778ef499b40fad63160e22",
    "N4/a-cubes-equal-radii-F10": "377139a30226c41bef6fed103bca92e349cf3f2ae958b0058007373a3fb415a3",
    "N4/a-cubes-translate-F9": "51286c87732abc1d1e085248fa3bad2312617053d6b9b70563053d08d4793396",
    "N4/a-random-cubes-distinct": "7e3aff31d15cadbff9d3636e5dba42a54f8b70739cb35590222a2b700fbe380b",
    "N4/a-random-cubes-equal": "84ca0ac859afec15024052424c14070291edf4ccdd9ffd2512ec4ddcb6ebd587",
    "N4/b-laplace-1d-F16": "c9ae7726d2e502819898e2fef1765d9058005dc5f3bc709d418291545698b27a",
    "N4/b-laplace-8-covariances-F18": "a03eedb053cfcf82b7aae4ad05538e38a53036e29c6cd4d67e1020b4ab2b9e1c",
    "N4/b-laplace-F15": "e2d7892d67c98723012212fa422bf288e5a114593eb780bf6e14bc021580b2dd",
    "N4/b-laplace-translate-F17": "3cc28c2449068e80dde8d31b5929aabf3d7042365bb93616fbf38e3e89a9f3d7",
    "N4/b-random-laplace-distinct": "eda4a0ff807c2033cb0da465c0c750449a665a5ae52eda704a326b416727cea1",
    "N4/b-random-laplace-equal": "b3626d4d3d437b559a7701a956c9e2ab2c7d6bc331533fca0d0737416a67e3ce",
    "N4/c-mixtures-F19": "d1091baa2ca158e254cc84fccf193e3117ff08806c5b0c19a4c49f2be921e67f",
    "N4/c-mixtures-F22": "c4e318b3fab0b94caaa332573460762d9f15a9a964fe9d718a0278715647419c",
    "N4/c-mixtures-directions-F21": "e2a1d567bff50d7bd38ca3f8d763afae6df2f085a2e1e397915f97cbb554c9ef",
    "N4/c-mixtures-m-and-minus-m-F20": "208ad1855bf873729bb7704bfb7dacb98491c631e78951149b893f72e4d05ae4",
    "N4/c-mixtures-plus-gaussian-F23": "7697a20d7d98d3c6b7062da788a207a7d2910693e183117205e5feef94a10f20",
    "N4/c-random-mixtures-distinct": "2807bb1871dfae021620407a0a7820e48f186e1643fee03f7ecb569b3733f420",
    "N4/c-random-mixtures-equal": "a0e833b1fd01b12790f195103604880fdc1b7f9897452a2d76552f03056fd9a3",
    "N4/d-gaussians-1d-F11": "21a0ebda5d196517212fdc0e659032c56ea1cc01280b3343a6b657cf03c75ea4",
    "N4/d-gaussians-1d-constants-F11c": "7a9e07de2b4b35f64c4e9c5617c83fd00c5d934eedc4c46855d6d6b3af7a16ef",
    "N4/d-gaussians-6-in-3d-F18g6": "ab4330ab2ae5a6dcef9104359253e10961a54722fb7f8f14ad8efe5ff0a3a671",
    "N4/d-gaussians-F12": "e9cec512116aac5061d32e76fad0b3677f04f1077a3d8ae213739eebb37fcc23",
    "N4/d-gaussians-F13": "56d02f3e5b1157e0544049223f42046febd323c9c7688f10aa4b4e1eb726e94b",
    "N4/e-dilations-beta-F24": "98641164335a6c04c14ca8ce5938548bc7ac8eb53cdc61925379ee218752156d",
    "N4/e-dilations-cube": "9f966b6c2350071de834e7c5016ddfe155375337d3c6f1a9017b57a508f0a0bb",
    "N4/e-dilations-gaussian-F24g": "04528086e5fb8d19ff685a31c9d34e81b1c245509cd23a15ff2befe8b262c6db",
    "N4/e-dilations-gaussian-three": "e34d3d7e22436f42f1c4032dc4b2b23ee3cf840f6beae25db9a6d9624ba306cc",
    "N4/e-dilations-laplace": "e0fca292c57d2c6b1a0bc93edeed9f4797f4c3a271eec78f200c6c346a8c9809",
    "N4/e-dilations-mixture": "780e1196b1a7c1d4fcf4a44b25a4b5d1211fc1108ac2899875876ff539550354",
    "N4/e-dilations-two-point": "2a8ae3ec65e8f3c83ec49d40416ea96eaf51ea17c10e62d0734da1af9f51deff",
    "N4/f-lattice-control-laplace-cube-gaussian": "09f8d53f8221efecbddc427c2802ae41c9858798ebc99133130d30062ab6fea7",
    "N4/f-lattice-control-mixture-wrong-separation": "110e24f9bb28a521f4ca2bcfd942134e446194aa14e6b780ad81e0990729b227",
    "N4/f-lattice-control-perturbed-radius": "d9c323138f16feb18464a6e20a218fcc933bde8ea6764ddd91ac121d287fe61e",
    "N4/f-lattice-control-wrong-two-point": "9ace06f9d0f6e5032425925b127ac73d75af7d44cf4c2016b102fbf42d4679c5",
    "N4/f-lattice-cubes-equal-mixture-minus-gaussian": "7937c767af6c1d277032c6e73c57a994fbd9b551a05312502167f1794213fc0d",
    "N4/f-lattice-dirac-and-cube": "b3f6b40da6ce6099774ef4765981f03cb432f3ee2b9465791c2e03f441a58b89",
    "N4/f-lattice-mixture-any-gaussian-two-point-1d": "d81607c68cc7b85d97721f57a6c56bfad733ebc5d54728f3907960d6cc49d3a8",
    "N4/f-lattice-mixture-gaussian-two-point": "d256077a875942335c5787cdc94457a22f939968990881a5abdc542d7a2541d5",
    "N4/f-lattice-mixture-gaussian-two-point-translated": "3a374f46114bb383c876e60bc900404e8ad05d914084ff2170e33d18c2df78f9",
    "N4/f-lattice-sinh-double-1d": "42e1766ce6dfb7678d358afe3dfbbbfb91c88778d46daecf333822a32af46cc0",
    "N4/f-lattice-sinh-double-1d-constants": "2ef73c672bae45d0afbcc71e53d3bbfcbfb1c1a61388171dbb550119ba209c37",
    "N4/f-lattice-sinh-double-1d-untranslated-constants": "e475570ba5d808444bd73ba191fa13e749860a83b6cf4039352f515eaa55b487",
    "N4/f-lattice-sinh-double-2d": "6363359b44aa00d2fe55c85a6d39108ffe34a2c36097b1900b7311a3a43f0907",
    "N4/f-lattice-sinh-quadruple-1d": "ebe6ef9e675da52933d4b5874e77a596c47939bc3e1a254edc995d1ed17881b0",
    "N4/f-relation-gaussians-without-a": "c6d81895f79da123960dfe47835f1877c2afac4e3d666dc24f39d842620a5d1c",
    "N4/f-relation-sinh-double-holds": "e2ae3a41b416429ff97b4b92a369faea56e0859cac56f88ddbfc1e63ec093484",
    "N4/n1-gaussians-distinct-covariances-F14": "3f8f392756504f1380ba573564203a6cbd976b33acba24e5f458a4250544c97b",
    "N4/n1-laplace-same-covariances-F15": "e2d7892d67c98723012212fa422bf288e5a114593eb780bf6e14bc021580b2dd",
    "N4/n2-eight-gaussians-3d-F18g": "6601423e6ee5ca4dda874eadc6a324700209a7cf7777231d893ebcf8293d5806",
    "N4/series-bernoulli-vandermonde": "ce8cf048c327f521be1a658fe98c2b53b490cd8767965ce8c9c3c7683f20ab9d",
    "N5/a-S1-F2": "09a774630fe2766f1dec9aa9f3299843115262aff03b2e30847be420062b4cac",
    "N5/a-S1-F7": "7017b3f6d77c9b47ed3c71e3163433536cc5f69de571c654203412cc7d552243",
    "N5/b-convolution-F1": "c11962b9c4001441160accae21fae204a0a675c7f0bc824c324406c41e81b6c6",
    "N5/b-dirac-F4": "cc3c4296b9541df46060fcef5f6143cd2c1beddf73cf043ac788fd57a0a3ba50",
    "N5/b-forced-constructions": "3bfb37be2247978526278febcf985618a6310927bff8a665de1cd32e89d81f1f",
    "N5/c-poisson-binomial-F5": "26b8f377de1c3e28ffc117fa238a32ba5da48d5e593126f2448afddf88f06425",
    "N5/c-poisson-binomial-F6": "461bf94cdd38f60b9bcfd26a8f4161eb8f94c974a11f562f3f65ff4e9d1bb468",
    "N5/d-criterion-vs-certificate-200": "09a3778f1b1323d0aceacf1f7fa0acd25ced88a1801b864086601ece8a2baa15",
    "N5/n-S1-not-necessary-F6": "02da519317396ffb9e87f51eeff058df8538c1f6520c9f72466b431cb6f47494",
    "N5/n-disjoint-supports-F3": "2b658d7fb5aa6de0a5ed36807313364a84bd138b034edfe9687efe68ebd6de55",
    "N5/n-distinct-laws-F5": "5bd07004c2df2240a9cfe1b7aeaa247171f79175e9d209894e53191feb312376",
    "N6/F25-one-trial": "90e4cf5264577360cdb24d03211fcc12fb4cf72602895d246358006a39e88e67",
    "N6/n1-diracs": "9c213a24d85e521ba2ebf5af171358a4fab2f916e592a836ee1506e0c6ea085d",
    "N6/n2-lattice-samples": "ca84931299a7910ef1d1f6ae1f1e6fcfa6af5caebb4cacd064968bf0941e9719",
    "N6/normal-1000-trials": "baaaf67a7091cf5acc6892793b30370955c19e114f79ea1c0ab98a068b859e8e",
    "N6/uniform-d1-N10": "d6e7863e815078d33d974f37e7d539ed7b6b6d76f6d3609fc1fac3bd107c3f50",
    "N6/uniform-d3-N10": "5e81d4efce52a309a3e273ce4de38fff7ddc2d5a5c1515056b869d19cf084f60",
}
SLOW = {"N4/a-cubes-distinct-radii-F8", "N4/a-random-cubes-distinct", "N4/a-random-cubes-equal", "N4/b-laplace-8-covariances-F18", "N4/b-laplace-translate-F17", "N4/b-random-laplace-distinct", "N4/b-random-laplace-equal", "N4/c-mixtures-F19", "N4/c-mixtures-F22", "N4/c-mixtures-directions-F21", "N4/c-random-mixtures-distinct", "N4/c-random-mixtures-equal", "N4/e-dilations-beta-F24", "N4/e-dilations-cube", "N4/e-dilations-mixture", "N4/f-lattice-control-perturbed-radius", "N4/n2-eight-gaussians-3d-F18g", "N4/series-bernoulli-vandermonde", "N5/b-forced-constructions", "N5/c-poisson-binomial-F5", "N5/d-criterion-vs-certificate-200", "N5/n-distinct-laws-F5", "N6/F25-one-trial", "N6/n1-diracs", "N6/n2-lattice-samples", "N6/normal-1000-trials", "N6/uniform-d1-N10", "N6/uniform-d3-N10"}
ALL = HASH_ALL


@pytest.fixture(scope="module")
def audits():
    """The audits of the N4, N5 and N6 modules only (importing every audit module costs seconds)."""
    names = [m for m in audit_modules() if m.rsplit(".", 1)[-1].startswith(("n4_", "n5_", "n6_"))]
    return {a.id: a for name in names for a in audits_of_module(name)}


@pytest.mark.parametrize("audit_id", sorted(BEFORE))
def test_audit_results_byte_identical_to_before(audit_id, audits):
    if audit_id in SLOW and not ALL:
        pytest.skip("seconds long: compared with VERIFY_HASH_ALL=1")
    if audit_id not in audits:
        pytest.skip(f"{audit_id} renamed by its owner")
    assert result_hash(run_audit(audits[audit_id]).result) == BEFORE[audit_id]


def test_pins_cover_every_n4_n5_n6_audit(audits):
    # a new audit in these claims gets a pin (or the pin list is stale): the set is exactly the audits present
    assert {k for k in audits if k.split("/")[0] in ("N4", "N5", "N6")} == set(BEFORE)
