"""Tests of eqsat.solving."""
