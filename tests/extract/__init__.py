"""Tests of eqsat.extract."""
