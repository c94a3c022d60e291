"""Package layout (all metadata is in setup.cfg): the audits in ``proofs/`` at the top of the checkout are
installed as the sub-package ``verify.proofs``, never as a top-level ``proofs`` package."""

from setuptools import find_packages, setup

AUDIT_PACKAGES = ["verify.proofs"] + [f"verify.proofs.{name}" for name in find_packages("proofs")]

setup(
    packages=find_packages(include=["verify", "verify.*"]) + AUDIT_PACKAGES,
    package_dir={"verify.proofs": "proofs"},
)
