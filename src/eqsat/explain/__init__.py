"""Step-by-step derivations and pictures of e-graphs."""
