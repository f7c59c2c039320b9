"""Bits of error against an exact reference, accuracy-guided search, series, regimes."""
