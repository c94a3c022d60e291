"""Decision procedures: exact and rigorous analyses that decide a mathematical question about an object
passed in as an argument (region decomposition, emulation on a box, independence of CGFs, NTK
positive-definiteness, softmax error bounds, the mean-field particle model).  They name no claim ID;
the claim modules of :mod:`verify.checks` wrap them into Results.

May import arith, objects, laws and constructions; never checks, audit or cli.
"""
