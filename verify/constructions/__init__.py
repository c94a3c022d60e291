"""Constructions from the papers (spec tags R1..R9): maxout -> hardmax Transformer compiler,
token shift, score shift, CPWL compiler, reference families.  May import arith, objects and laws."""
