"""Audits of paper 2 (claims N1..N10)."""
