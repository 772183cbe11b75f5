"""Which kernels a command compiles on its first run, and how long each takes.

Runs ``subroc-ext ARGS`` in this process with an empty kernel cache
(``$SUBROC_EXT_CACHE`` pointed at a new folder) and records every numba
compilation (numba's ``numba:compile`` event): the kernel, its argument
types, and the CPU and wall seconds from its start to its end. Times are
inclusive: a kernel called by another is compiled while its caller is typed,
inside the caller's time (its rows are indented under the caller's). Of each
kernel's CPU, the part spent in LLVM (numba's ``numba:llvm_lock`` event, held
around every call into llvmlite's library: LLVM's optimisation and machine
code generation) is listed too; the rest is numba's own Python (bytecode
analysis, IR inlining, type inference, lowering to LLVM IR, caching). The
command's second compiling process (:mod:`subroc_ext.cli.warm_up`) is not
started, so every kernel is compiled, and timed, in this one.

Examples
--------
::

    python benchmarks/bench_compile.py demo --out /tmp/demo --quiet
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the subroc-ext command line")
    args = parser.parse_args(argv)
    os.environ["SUBROC_EXT_CACHE"] = tempfile.mkdtemp(prefix="bench_compile_")
    os.environ.pop("NUMBA_CACHE_DIR", None)
    sys.path.insert(0, str(ROOT))
    from numba.core import event

    records, open_, llvm = [], [], {"depth": 0, "start": 0.0}

    class Recorder(event.Listener):
        def on_start(self, ev):
            open_.append([time.perf_counter(), time.process_time(), 0.0])

        def on_end(self, ev):
            wall, cpu, in_llvm = open_.pop()
            function = ev.data["dispatcher"].py_func
            records.append((wall, len(open_), function.__module__, function.__qualname__, str(ev.data["args"]),
                            time.perf_counter() - wall, time.process_time() - cpu, in_llvm))  # fmt: skip

    class LLVMTimer(event.Listener):
        """CPU inside llvmlite's library, added to every compilation open around it."""

        def on_start(self, ev):
            llvm["depth"] += 1
            if llvm["depth"] == 1:
                llvm["start"] = time.process_time()

        def on_end(self, ev):
            llvm["depth"] -= 1
            if llvm["depth"] == 0:
                for record in open_:
                    record[2] += time.process_time() - llvm["start"]

    event.register("numba:compile", Recorder())
    event.register("numba:llvm_lock", LLVMTimer())
    import subroc_ext.cli
    from subroc_ext.cli.warm_up import SWITCH

    os.environ[SWITCH] = "0"  # no second process: every kernel compiled here, where it is timed

    start = time.perf_counter(), time.process_time()
    code = subroc_ext.cli.main(args.command)
    total = time.perf_counter() - start[0], time.process_time() - start[1]
    records.sort()
    top = [record for record in records if record[1] == 0]
    print("| kernel | depth | CPU s | of it LLVM s | wall s |\n|---|---|---|---|---|")
    for _, depth, module, name, _, wall, cpu, in_llvm in records:
        if cpu >= 0.2:
            print(f"| {'  ' * depth}{module.removeprefix('subroc_ext.')}.{name} | {depth} | {cpu:.2f} | {in_llvm:.2f} "
                  f"| {wall:.2f} |")
    print(f"\ncommand: wall {total[0]:.1f} s, CPU {total[1]:.1f} s; compiling from Python: "
          f"{len(top)} kernels, CPU {sum(r[6] for r in top):.1f} s (LLVM {sum(r[7] for r in top):.1f} s), "
          f"wall {sum(r[5] for r in top):.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
