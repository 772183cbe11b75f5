"""Where a large run's wall time and memory go: ``subroc-ext run`` phase by phase.

Runs ``subroc-ext run DATA --label y --score p --quiet`` in this process
with a timer around each step of the single-split pipeline
(:mod:`subroc_ext.workflow.single_split`) and of the command (reading,
splitting, the files), and the headline's two kinds of tests inside the
judgement (the promise's label draws, :meth:`Promise.test`, and the rules'
"worse than" randomization tests), while a thread samples the resident
memory every 20 ms: the peak of each phase (the process's, so far, at the
end of it) and the run's. The data is issue 58's table
(:func:`bench_scale.make_data` with ``wide=True``), made if missing.

Wall times are of one run on whatever else the machine does: compare runs
of two trees with ``farm-bench`` (benchmarks/RESULTS.md), not these.

Examples
--------
::

    python benchmarks/bench_phases.py --rows 2000000 --data /tmp/big2m.csv
"""

import argparse
import contextlib
import functools
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_scale import make_data  # noqa: E402

from subroc_ext.cli import commands, main  # noqa: E402
from subroc_ext.inference import failures, promise  # noqa: E402
from subroc_ext.workflow import single_split  # noqa: E402

#: (module, function, phase): the steps timed, in the order they run.
STEPS = [
    (commands, "_read", "read the CSV"),
    (commands, "_split", "split"),
    (single_split, "prepare", "prepare (calibration, search space)"),
    (single_split, "search_keep_test", "search and the table's test"),
    (single_split, "describe_table", "describe (intervals, columns)"),
    (single_split, "judge", "judge (the headline's rules)"),
    (promise.Promise, "test", "  of it: the promise's label-draw tests"),
    (failures, "randomization_test", "  of it: the rules' 'worse than' tests"),
    (single_split, "table_attrs", "the table's attributes (data checks)"),
    (commands, "finish", "report and files"),
]


def _resident_mib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class _Phases:
    """Each step's calls, seconds and the resident peak at its end."""

    def __init__(self):
        self.calls, self.seconds, self.peak_at_end, self.peak = {}, {}, {}, 0.0
        self._stop = threading.Event()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, _resident_mib())
            time.sleep(0.02)

    def timed(self, function, phase):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.calls[phase] = self.calls.get(phase, 0) + 1
                self.seconds[phase] = self.seconds.get(phase, 0.0) + time.perf_counter() - start
                self.peak_at_end[phase] = max(self.peak, _resident_mib())

        return wrapper

    def table(self, total):
        self._stop.set()
        lines = [f"| phase | calls | wall s | peak MiB so far |", "|---|---|---|---|"]
        for _, _, phase in STEPS:
            if phase in self.calls:
                lines.append(f"| {phase} | {self.calls[phase]} | {self.seconds[phase]:.1f} | "
                             f"{self.peak_at_end[phase]:,.0f} |")  # fmt: skip
        lines.append(f"| **the run** | | **{total:.1f}** | **{max(self.peak, _resident_mib()):,.0f}** |")
        return "\n".join(lines)


def main_(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--data", help="the generated CSV (made if missing)")
    parser.add_argument("--out", default="bench_phases_out", help="the run's output folder")
    args = parser.parse_args(argv)
    data = Path(args.data or f"scale_wide_{args.rows}.csv")
    if not data.exists():
        make_data(args.rows, wide=True).to_csv(data, index=False)
    phases = _Phases()
    for owner, name, phase in STEPS:
        setattr(owner, name, phases.timed(getattr(owner, name), phase))
    start = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        code = main(["run", str(data), "--label", "y", "--score", "p", "--out", args.out, "--quiet"])
    print(phases.table(time.perf_counter() - start))
    return code


if __name__ == "__main__":
    sys.exit(main_())
