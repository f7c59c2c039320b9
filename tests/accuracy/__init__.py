"""Tests of eqsat.accuracy."""
