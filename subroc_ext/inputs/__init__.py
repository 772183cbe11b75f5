"""The user's data, checked once: labels and the positive label, the target, input files, the search space, the data sorted by score, the validated data object."""
