"""Tests of eqsat.limits."""
