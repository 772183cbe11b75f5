"""Keep numba's on-disk caches of the package's kernels consistent with their sources.

The kernels are compiled with ``@njit(cache=True)``: numba saves the machine
code next to each module (``__pycache__/*.nbi``, ``*.nbc``) and reuses it as
long as *that module's* file is unchanged. A kernel that calls a kernel of
another module has the callee compiled into it, so after the callee's module
alone changes (a ``git pull`` into an editable install, an edit while
developing) the caller's cache still holds the old callee, and numba reuses it
without a word: the search would run yesterday's bound. An installed release
is not affected (installing rewrites every file).

:func:`refresh_kernel_caches` runs when the package is imported, before any
kernel is called: it fingerprints the sources of the modules that import
numba and, when the fingerprint differs from the one stored beside the
caches, deletes the package's numba caches (they are compiled again on first
use) and stores the new fingerprint.
"""

import hashlib
import os
from pathlib import Path

__all__ = ["refresh_kernel_caches"]

#: File, in the package's own ``__pycache__``, holding the fingerprint of the
#: kernel sources the caches were compiled from.
FINGERPRINT = "subroc-ext-kernels.sha256"


def kernel_sources(package):
    """The package's modules that import numba: ``{path: contents}``, sorted by path."""
    sources = {path: path.read_bytes() for path in sorted(Path(package).rglob("*.py"))}
    return {path: text for path, text in sources.items() if b"numba" in text}


def fingerprint(package):
    """SHA-256 of the paths and contents of :func:`kernel_sources` (each file read once)."""
    digest = hashlib.sha256()
    for path, text in kernel_sources(package).items():
        digest.update(str(path.relative_to(package)).encode())
        digest.update(text)
    return digest.hexdigest()


def refresh_kernel_caches(package):
    """Delete the numba caches under ``package`` when its kernel sources changed.

    Parameters
    ----------
    package : str or pathlib.Path
        The package's folder.

    Returns
    -------
    int or None
        The number of cache files deleted; None when nothing was checked
        (``NUMBA_CACHE_DIR`` set, so the caches live elsewhere, or the
        package's folder is not writable, so numba keeps no caches there).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "kernels.py").write_text("from numba import njit")
    >>> (folder / "__pycache__").mkdir()
    >>> _ = (folder / "__pycache__" / "kernels.f-1.py311.nbi").write_bytes(b"")
    >>> refresh_kernel_caches(folder), refresh_kernel_caches(folder)
    (1, 0)
    """
    package = Path(package)
    if os.environ.get("NUMBA_CACHE_DIR") or not os.access(package, os.W_OK):
        return None
    stored = package / "__pycache__" / FINGERPRINT
    current = fingerprint(package)
    try:
        if stored.read_text() == current:
            return 0
    except OSError:
        pass  # no fingerprint yet: caches of unknown origin
    deleted = 0
    for cache in [*package.rglob("__pycache__/*.nbi"), *package.rglob("__pycache__/*.nbc")]:
        try:
            cache.unlink()
            deleted += 1
        except OSError:  # another process deleted it first
            pass
    try:
        stored.parent.mkdir(exist_ok=True)
        stored.write_text(current)
    except OSError:  # checked again next time
        pass
    return deleted
