"""The search: FastSearch (exact top-k with pruning, compiled, threaded, or on a Dask cluster) and candidate counting."""
