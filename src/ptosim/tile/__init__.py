"""Tile level: Tile and GlobalTensor descriptors and the tile ops (TLOAD, TSTORE, TMOV,
TMATMUL ...), implemented on top of the micro-ops so both levels share one semantics."""
