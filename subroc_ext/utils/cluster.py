"""Running work on a Dask cluster (``dask.distributed``, the optional extra ``dask``).

The search (:class:`~subroc_ext.FastSearch`) and the randomization test
(:func:`~subroc_ext.randomization_test`) take ``client=``, a
``dask.distributed.Client``. This module holds what they share: the import
check, the choice between a client and threads (:func:`parallelism`), and
sending prepared data to every worker once.

Without ``dask.distributed`` installed everything else in subroc-ext works
(threads, ``n_jobs=``, included); only ``client=`` raises an
``ImportError`` naming the extra.
"""

import contextlib
import importlib

import numpy as np

from .names import INSTALL

__all__ = ["check_client", "parallelism", "require_distributed", "share", "shared", "worker_count"]


def require_distributed(argument):
    """The ``distributed`` module, or an ``ImportError`` naming ``argument`` and the extra."""
    try:
        return importlib.import_module("distributed")
    except ImportError as error:
        raise ImportError(
            f"{argument} needs dask.distributed, which is not installed; install the "
            f"optional extra: {INSTALL}"
        ) from error


def check_client(client, argument="client"):
    """Raise unless ``client`` is a ``dask.distributed.Client``; returns it."""
    distributed = require_distributed(argument)
    if not isinstance(client, distributed.Client):
        raise TypeError(
            f"{argument} must be a dask.distributed.Client, got {type(client).__name__}"
        )
    return client


def parallelism(client=None, n_jobs=None):
    """Where the pipelines run: ``(client, threads)``, checked.

    Parameters
    ----------
    client : dask.distributed.Client, optional
        Run on this cluster (``threads`` is then 1; ``n_jobs`` must be None or 1).
    n_jobs : int, optional
        Threads in this process (1 if None). It used to start a Dask
        ``LocalCluster`` of ``n_jobs`` worker processes; threads give the
        same results without starting processes or shipping the data.

    Returns
    -------
    (dask.distributed.Client or None, int)
    """
    if client is not None and n_jobs not in (None, 1):
        raise ValueError("pass client= or n_jobs=, not both")
    if client is not None:
        return check_client(client), 1
    if n_jobs is None:
        return None, 1
    if not (isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, bool) and n_jobs >= 1):
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    return None, int(n_jobs)


def share(client, value):
    """Send ``value`` to every worker once; returns its future for task arguments.

    Every worker holds a copy, so a worker that dies does not lose it: a
    replacement gets it from the others.
    """
    return client.scatter(value, broadcast=True, hash=False)


@contextlib.contextmanager
def shared(client, value):
    """:func:`share` ``value`` for the block and cancel it after (None without a client)."""
    if client is None:
        yield None
        return
    require_distributed("client")
    future = share(client, value)
    try:
        yield future
    finally:
        client.cancel(future)


def worker_count(client):
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
