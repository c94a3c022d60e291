"""Constructions from the papers (docs/paper1.md R1 to R9): maxout -> hardmax Transformer compiler,
token shift, score shift, CPWL compiler, reference families.  May import arith, objects and laws."""
