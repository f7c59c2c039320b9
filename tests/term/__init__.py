"""Tests of eqsat.term."""
