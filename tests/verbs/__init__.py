"""Tests of eqsat.verbs."""
