"""What was alive at a process's peak of memory, grouped by subroc-ext's own code.

Reads a capture of `memray <https://bloomberg.github.io/memray/>`_ (not a
dependency of subroc-ext: ``pip install memray``) and prints the allocations
still alive at its high-water mark, summed by the innermost frames of
``subroc_ext`` on their stacks (imports and other libraries by their own
innermost frame), largest first::

    memray run -q -o peak.bin -m subroc_ext.cli run DATA.csv --label y --score p --quiet
    python benchmarks/memory_peak.py peak.bin --frames 3

Memory an allocator keeps after it was freed (pyarrow's mimalloc pages, say)
shows as alive at the call that asked for it. With ``--at rss`` the
allocations alive at the capture's memory snapshot of the largest resident
size are shown instead (memray takes snapshots in every capture): the peak
``/usr/bin/time`` reports, which can come at another moment than the heap's
high-water mark.
"""

import argparse
import collections


def grouped(records, frames=3):
    """Bytes alive by place: ``{place: bytes}``, ``place`` the innermost
    ``frames`` frames of subroc_ext (``function:file:line``, innermost
    first) or, without one, the innermost frame of the stack."""
    places = collections.Counter()
    for record in records:
        stack = record.stack_trace(max_stacks=60)
        ours = [f"{function}:{path.split('/')[-1]}:{line}" for function, path, line in stack if "subroc_ext" in path]
        if ours:
            place = " < ".join(ours[:frames])
        else:
            place = f"{stack[0][0]}:{stack[0][1].split('/')[-1]}" if stack else "(no stack)"
        places[place] += record.size
    return places


class _Alive:
    """A temporal record's allocations alive at one snapshot, shaped as a plain record."""

    def __init__(self, size, record):
        self.size, self.stack_trace = size, record.stack_trace


def alive_at(records, snapshot):
    """The allocations of memray's temporal ``records`` alive at memory
    snapshot number ``snapshot``, as records with ``size`` and ``stack_trace``."""
    for record in records:
        size = sum(
            interval.n_bytes for interval in record.intervals
            if interval.allocated_before_snapshot <= snapshot
            and (interval.deallocated_before_snapshot is None or interval.deallocated_before_snapshot > snapshot)
        )  # fmt: skip
        if size:
            yield _Alive(size, record)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("capture", help="a memray capture file")
    parser.add_argument("--frames", type=int, default=3, help="subroc_ext frames that name a place")
    parser.add_argument("--top", type=int, default=30, help="places shown")
    parser.add_argument("--at", choices=["heap", "rss"], default="heap",
                        help="the heap's high-water mark, or the snapshot of the largest resident size")
    args = parser.parse_args(argv)
    import memray

    reader = memray.FileReader(args.capture)
    if args.at == "heap":
        records = reader.get_high_watermark_allocation_records(merge_threads=True)
    else:
        snapshots = list(reader.get_memory_snapshots())
        peak = max(range(len(snapshots)), key=lambda i: snapshots[i].rss)
        print(f"resident at the peak: {snapshots[peak].rss / 2**20:,.0f} MB")
        records = alive_at(reader.get_temporal_allocation_records(merge_threads=True), peak)
    places = grouped(records, args.frames)
    print(f"alive at the peak: {sum(places.values()) / 2**20:,.0f} MB")
    for place, size in places.most_common(args.top):
        print(f"{size / 2**20:9,.1f} MB  {place}")


if __name__ == "__main__":
    main()
