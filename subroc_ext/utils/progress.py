"""Progress on stderr: a tqdm bar on a terminal (or in Jupyter), plain lines otherwise.

tqdm draws its bar with carriage returns, which end up as dozens of lines in a
log file or a CI transcript; so when stderr is not a terminal (and no Jupyter
kernel is running) :func:`progress_bar` returns :class:`PlainProgress`, which
writes one plain line when the work ends (and, while it lasts, one after
``first`` seconds and then one every ``interval`` seconds), with the total
where it is known.
"""

import sys
import time

__all__ = ["PlainProgress", "progress_bar", "search_status"]


class PlainProgress:
    """Plain progress lines for a stream that is not a terminal.

    The subset of tqdm's interface our loops use (iteration, ``update``,
    ``set_postfix_str``, ``close``), writing ``desc: n[/total] in s[, about
    s left][; postfix]`` after ``first`` seconds, then every ``interval``
    seconds and once on ``close``; the time left is extrapolated from the
    rate so far when the total is known.

    Parameters
    ----------
    iterable : iterable
    desc : str
    total : int, optional
    stream : file-like, default=sys.stderr
    interval : float, default=30
        Seconds between two intermediate lines.
    first : float, default=5
        Seconds before the first intermediate line (at most ``interval``):
        a long run says early that it is under way.
    """

    def __init__(self, iterable, *, desc, total=None, stream=None, interval=30.0, first=5.0):
        self.iterable, self.desc, self.total = iterable, desc, total
        self.stream = sys.stderr if stream is None else stream
        self.interval = interval
        self.wait = min(first, interval)
        self.n = 0
        self.postfix = ""
        self.start = self.last = time.monotonic()
        self.closed = False

    def __iter__(self):
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def update(self, n=1):
        """Count ``n`` more items; write a line if ``first`` (then ``interval``) seconds have passed."""
        self.n += n
        now = time.monotonic()
        if now - self.last >= self.wait:
            self.last, self.wait = now, self.interval
            self._write(now)

    def set_postfix_str(self, text, refresh=True):
        """Text after the count (e.g. the search's current k-th best quality)."""
        self.postfix = text

    def close(self):
        """Write the final line (once)."""
        if not self.closed:
            self.closed = True
            self._write(time.monotonic())

    def _write(self, now):
        elapsed = now - self.start
        count = f"{self.n:,}" if self.total is None else f"{self.n:,}/{self.total:,}"
        left = ""
        if self.total and 0 < self.n < self.total:
            left = f", about {elapsed / self.n * (self.total - self.n):.0f} s left"
        postfix = f"; {self.postfix}" if self.postfix else ""
        print(f"{self.desc}: {count} in {elapsed:.1f} s{left}{postfix}", file=self.stream, flush=True)


def _interactive(stream):
    """Whether ``stream`` is a terminal or a Jupyter kernel shows the output."""
    if "ipykernel" in sys.modules:
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def progress_bar(iterable, *, enabled, desc=None, total=None):
    """``iterable`` with progress on stderr when ``enabled``.

    A tqdm bar (with ``total`` it shows a percentage and an ETA) on a
    terminal or in Jupyter; :class:`PlainProgress` lines otherwise; the
    iterable itself when not ``enabled``.
    """
    if not enabled:
        return iterable
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)
    if not _interactive(sys.stderr):
        return PlainProgress(iterable, desc=desc or "progress", total=total)
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)


def search_status(found, k, threshold):
    """A search's progress text: results so far, then the quality a new one must beat.

    Until ``k`` results are found the threshold is the minimum quality (often
    ``-inf``), which says nothing; then it is the k-th best quality.
    """
    if found < k:
        return f"{found:,} of {k:,} results found"
    return f"k-th best quality {threshold:.4g}"
