"""Where the package's compiled kernels are cached, and how they are kept
consistent with their sources.

The kernels are compiled with ``@njit(cache=True)``: numba saves the machine
code next to each module (``__pycache__/*.nbi``, ``*.nbc``) and reuses it as
long as *that module's* file is unchanged. A kernel that calls a kernel of
another module has the callee compiled into it, so after the callee's module
alone changes (a ``git pull`` into an editable install, an edit while
developing) the caller's cache still holds the old callee, and numba reuses it
without a word: the search would run yesterday's bound. An installed release
is not affected (installing rewrites every file).

:func:`use_kernel_cache` (called when :mod:`subroc_ext.metrics` and
:mod:`subroc_ext.scoring`, the layers with kernels, are imported) makes numba keep them in the user's cache
instead, ``$SUBROC_EXT_CACHE/kernels/<fingerprint>/`` (default
``~/.cache/subroc-ext``), where the fingerprint covers the sources of every
module that imports numba: a fresh install of the same version (a new
virtual environment, ``pip install --force-reinstall``) finds the kernels
compiled by the last one, and a changed source (in any module) gets a new
folder, so no kernel ever runs a stale callee. The folders of the four most
recently used fingerprints are kept.

:func:`refresh_kernel_caches` runs when the package is imported, before any
kernel is called, for numba's own cache beside the modules (used when
``NUMBA_CACHE_DIR`` is set or the user's cache is not writable): when the
fingerprint differs from the one stored beside the caches, it deletes the
package's numba caches there (they are compiled again on first use) and
stores the new fingerprint.

Neither imports numba until a kernel module is imported, so
``subroc-ext --version`` stays instant.
"""

import functools
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

__all__ = [
    "refresh_kernel_caches",
    "user_cache_dir",
    "kernel_cache_dir",
    "use_kernel_cache",
    "kernels_cached",
    "kernel_cache_writable",
]

#: The package's folder.
PACKAGE = Path(__file__).resolve().parents[1]

#: Fingerprint folders kept in the user's kernel cache.
KEPT_VERSIONS = 4

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


def user_cache_dir():
    """The user's cache folder of subroc-ext: ``$SUBROC_EXT_CACHE`` or
    ``~/.cache/subroc-ext`` (not created here)."""
    return Path(os.environ.get("SUBROC_EXT_CACHE", Path.home() / ".cache" / "subroc-ext"))


@functools.lru_cache(maxsize=None)
def _package_fingerprint():
    return fingerprint(PACKAGE)


def kernel_cache_dir():
    """The folder of the compiled kernels of the installed sources:
    ``user_cache_dir() / 'kernels' / <fingerprint>``."""
    return user_cache_dir() / "kernels" / _package_fingerprint()[:24]


def kernels_cached():
    """Whether compiled kernels of the installed sources are on disk (in the
    user's kernel cache, or beside the modules): False before the first run
    after an install or an update, which compiles them."""
    folders = [PACKAGE] if os.environ.get("NUMBA_CACHE_DIR") else [kernel_cache_dir(), PACKAGE]
    return any(next(folder.rglob("*.nbi"), None) is not None for folder in folders if folder.is_dir())


def kernel_cache_writable():
    """Whether numba keeps the kernels in :func:`kernel_cache_dir`: no
    ``NUMBA_CACHE_DIR``, and the folder can be created and written (numba
    itself checks by writing a file there)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    try:
        kernel_cache_dir().mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=kernel_cache_dir()).close()
    except OSError:
        return False
    return True


def use_kernel_cache():
    """Make numba cache the package's kernels in :func:`kernel_cache_dir`.

    Registers a numba cache locator (first in line) that answers for the
    modules of this package only, unless ``NUMBA_CACHE_DIR`` is set (then
    numba's own choice stands). Call before the kernel modules are
    imported; calling again does nothing.

    Returns
    -------
    bool
        Whether the locator is registered.
    """
    locator = _locator_class()
    if locator is None:
        return False
    from numba.core import caching

    locators = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.62
    if locator not in locators._locator_classes:
        _prune(kernel_cache_dir().parent, keep=kernel_cache_dir().name)
        locators._locator_classes.insert(0, locator)
    return True


def _prune(folder, keep):
    """Delete all but the :data:`KEPT_VERSIONS` most recently used fingerprint
    folders of ``folder`` (never ``keep``)."""
    try:
        others = sorted(
            (path for path in folder.iterdir() if path.is_dir() and path.name != keep),
            key=lambda path: path.stat().st_mtime, reverse=True,
        )  # fmt: skip
    except OSError:  # no cache yet
        return
    for path in others[KEPT_VERSIONS - 1 :]:
        shutil.rmtree(path, ignore_errors=True)


@functools.lru_cache(maxsize=None)
def _locator_class():
    """The numba cache locator of :func:`use_kernel_cache` (None with
    ``NUMBA_CACHE_DIR``); numba is imported here, not at import."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    from numba.core import caching

    class KernelCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """numba's cache of a kernel of this package in :func:`kernel_cache_dir`,
        one folder per module; the source stamp is the fingerprint of every
        kernel source, so a kernel is reused only with the very sources it
        was compiled from."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            module = Path(py_file).resolve().relative_to(PACKAGE).with_suffix("")
            self._cache_path = str(kernel_cache_dir() / ".".join(module.parts))

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return _package_fingerprint()

        @classmethod
        def from_function(cls, py_func, py_file):
            if PACKAGE not in Path(py_file).resolve().parents:
                return None
            return super().from_function(py_func, py_file)  # None unless writable

    return KernelCacheLocator
