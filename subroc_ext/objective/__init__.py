"""pysubgroup quality functions: one model (SoftClassifierQF and its measures), generalization awareness, AUC_mu, two models or periods; the bound checker for measure authors."""
