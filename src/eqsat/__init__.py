"""eqsat: symbolic tensor algebra by equality saturation on e-graphs."""
