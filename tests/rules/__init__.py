"""Tests of eqsat.rules."""
