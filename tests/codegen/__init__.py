"""Tests of eqsat.codegen."""
