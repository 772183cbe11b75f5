"""Running work on a Dask cluster (``dask.distributed``, the optional extra ``dask``).

The search (:class:`~subroc_ext.FastSearch`) and the randomization test
(:func:`~subroc_ext.randomization_test`) take ``client=``, a
``dask.distributed.Client``. This module holds what they share: the import
check, the choice between a client and threads (:func:`parallelism`), and
sending prepared data to every worker once (and again if the cluster loses
it: :class:`Shared`).

Without ``dask.distributed`` installed everything else in subroc-ext works
(threads, ``n_jobs=``, included); only ``client=`` raises an
``ImportError`` naming the extra.
"""

import contextlib
import importlib

import numpy as np

from .names import INSTALL

__all__ = ["LostShare", "Shared", "check_client", "parallelism", "require_distributed", "shared", "worker_count"]


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


class LostShare(Exception):
    """A task was cancelled because the cluster lost the shared value it needed
    (:meth:`Shared.result`); the value is shared again."""


class Shared:
    """A value held by every worker of a cluster, shared again if it is lost.

    ``client.scatter(value, broadcast=True)`` gives every worker a copy, so
    the death of one worker loses nothing while another holds one. A
    worker started in place of a dead one holds none, though, so a second
    death can take the last copy: the scheduler then cancels every task
    that needs it ("lost dependencies"). Tasks submitted with :meth:`submit`
    and taken with :meth:`results` (or, submitting as they go, with
    :meth:`result`) run again on the value shared anew, the same inputs
    giving the same results.

    Parameters
    ----------
    client : dask.distributed.Client
    value : object
        What the tasks take as their first argument.
    """

    #: Losses of the value survived; the next raises the tasks' error.
    renewals = 3

    def __init__(self, client, value):
        self.client, self.value = client, value
        self.losses = 0
        self.future = self._scatter()
        self._shared_for = {}  # task key: the future of the value it was given

    def _scatter(self):
        return self.client.scatter(self.value, broadcast=True, hash=False)

    def submit(self, function, *args, **options):
        """``client.submit(function, value, *args, pure=False, **options)``."""
        future = self.client.submit(function, self.future, *args, pure=False, **options)
        self._shared_for[future.key] = self.future
        return future

    def result(self, future):
        """``future.result()`` of one of :meth:`submit`'s futures.

        Raises
        ------
        LostShare
            The task was cancelled because the copy of the value it was
            given was lost; the value is shared again (once per loss), so
            submit the task again. After :attr:`renewals` losses the
            cancellation is raised instead, as is any other error.
        """
        given = self._shared_for.pop(future.key, None)
        try:
            return future.result()
        except require_distributed("client").client.FutureCancelledError:
            if given is None or (given is self.future and self.losses == self.renewals):
                raise
            if given is self.future:
                self.losses += 1
                self.client.cancel(self.future)
                self.future = self._scatter()
            raise LostShare(future.key) from None

    def results(self, function, jobs):
        """``(tag, function(value, *arguments))`` of each ``(tag, arguments)``
        of ``jobs``, computed on the workers, as they finish; a task cancelled
        because the value was lost runs again (:meth:`result`)."""
        distributed = require_distributed("client")
        jobs = dict(jobs)
        futures = {self.submit(function, *arguments): tag for tag, arguments in jobs.items()}
        done = distributed.as_completed(futures)
        try:
            for future in done:
                tag = futures.pop(future)
                try:
                    outcome = self.result(future)
                except LostShare:
                    again = self.submit(function, *jobs[tag])
                    futures[again] = tag
                    done.add(again)
                    continue
                yield tag, outcome
        finally:  # done, failed or stopped early (Ctrl-C): nothing is left running
            self.client.cancel(list(futures))

    def cancel(self):
        """Release the workers' copies."""
        self.client.cancel(self.future)


@contextlib.contextmanager
def shared(client, value):
    """A :class:`Shared` ``value`` for the block, released after (None without a client)."""
    if client is None:
        yield None
        return
    require_distributed("client")
    on_workers = Shared(client, value)
    try:
        yield on_workers
    finally:
        on_workers.cancel()


def worker_count(client):
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
