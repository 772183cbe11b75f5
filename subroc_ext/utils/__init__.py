"""Helpers every layer uses: input checks, renamed names, progress bars, files written whole, the optional Dask extra, subsets of rows."""
