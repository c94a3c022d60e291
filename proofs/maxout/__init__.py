"""Audits of paper 1 (claims T1..T11)."""
