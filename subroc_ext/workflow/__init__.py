"""The steps (search, describe, test) and the pipelines composed of them: one model, multi-class, comparisons; redundancy filters."""
