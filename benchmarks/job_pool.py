"""The simulations' process pool: one job per data set or table."""

from concurrent.futures import ProcessPoolExecutor


def mapped(run, jobs, processes):
    """``run(job)`` of each of ``jobs``, in their order, as each comes: on
    ``processes`` worker processes, or here (1), so that a caller can write
    every result down before the next one."""
    if processes <= 1:
        yield from map(run, jobs)
        return
    with ProcessPoolExecutor(processes) as pool:
        yield from pool.map(run, jobs)
