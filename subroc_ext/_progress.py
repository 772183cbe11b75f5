"""A progress bar that can be switched off (tqdm when enabled)."""

__all__ = ["progress_bar"]


def progress_bar(iterable, *, enabled, desc=None, total=None):
    """Wrap ``iterable`` in a tqdm progress bar on stderr when ``enabled``."""
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)
