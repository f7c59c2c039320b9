"""Tests of eqsat.explain."""
