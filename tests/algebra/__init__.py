"""Tests of eqsat.algebra."""
