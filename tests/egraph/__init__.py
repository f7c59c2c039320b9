"""Tests of eqsat.egraph."""
