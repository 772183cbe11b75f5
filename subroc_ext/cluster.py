"""Running work on a Dask cluster (``dask.distributed``, the optional extra ``dask``).

The search (:class:`~subroc_ext.FastSearch`) and the randomization test
(:func:`~subroc_ext.randomization_test`) take ``client=``, a
``dask.distributed.Client``; :func:`~subroc_ext.find_subgroups` also takes
``n_jobs=``, which starts a local cluster of worker processes for the call.
This module holds what they share: the import check, the local cluster, and
sending prepared data to every worker once.

Without ``dask.distributed`` installed everything else in subroc-ext works;
only ``client=`` and ``n_jobs=`` raise an ``ImportError`` naming the extra.
"""

import contextlib
import importlib

import numpy as np

__all__ = ["check_client", "local_client", "require_distributed", "share", "worker_count"]

#: What to install for ``client=`` and ``n_jobs=``.
INSTALL = "pip install 'subroc-ext[dask]'"


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


@contextlib.contextmanager
def local_client(client=None, n_jobs=None):
    """The client to run on: ``client`` itself, or a new local cluster.

    Parameters
    ----------
    client : dask.distributed.Client, optional
        Used as is (and left open).
    n_jobs : int, optional
        Start a ``LocalCluster`` with this many worker processes of one
        thread each, and close it when the ``with`` block ends.

    Yields
    ------
    dask.distributed.Client or None
        ``None`` when neither is given (run in this process).
    """
    if client is not None and n_jobs is not None:
        raise ValueError("pass client= or n_jobs=, not both")
    if n_jobs is None:
        yield None if client is None else check_client(client)
        return
    if not (isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, bool) and n_jobs >= 1):
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    distributed = require_distributed("n_jobs")
    with distributed.LocalCluster(
        n_workers=int(n_jobs), threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as started:  # fmt: skip
        yield started


def share(client, value):
    """Send ``value`` to every worker once; returns its future for task arguments.

    Every worker holds a copy, so a worker that dies does not lose it: a
    replacement gets it from the others.
    """
    return client.scatter(value, broadcast=True, hash=False)


def worker_count(client):
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
