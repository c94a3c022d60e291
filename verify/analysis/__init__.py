"""Exact and rigorous analyses of objects: region decomposition (1-D and 2-D, exact),
NTK Gram matrices, the mean-field particle model.  May import engines, objects, constructions."""
