"""Statistics after the search: sequential p-values, the randomization test, effect sizes with simultaneous intervals."""
