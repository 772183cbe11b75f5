"""Run every experiment: Table 1, Table 2 (runtimes), Figure 2 (injection),
Figure 3 (skew) and the Adult case study.

    python -m experiments.run_all --jobs 2   # the full run, two scripts at a time (hours: Table 2 repeats every search 10 times)
    python -m experiments.run_all            # the same, one script at a time
    python -m experiments.run_all --smoke    # tiny sizes, ~30 s, no network

Each script runs as a subprocess writing to ``--out`` (default
``experiments/results/``; a smoke run writes to a new temporary directory
and never into the repository); ``run_all.json`` records the machine, each
script's wall time and exit status. In a full run with the default output
directory the PNG figures are also copied to ``experiments/figures/``.
Exits with status 1 if any script failed.
"""

import argparse
import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments import common

#: Scripts in order; with ``--jobs 2`` the two streams run side by side
#: (the case study reuses Table 1's cached searches, so it follows it).
STREAMS = (
    ("table1", "case_study_adult", "table5_basic_tested", "figure2_low_weights"),
    ("figure3_skew", "figure2_injection", "table2_runtimes"),
)
SCRIPTS = tuple(name for stream in STREAMS for name in stream)
#: Entries that run a script with extra arguments: name -> (module, arguments, output subdirectory).
VARIANTS = {
    # Figure 2 with lighter weights (alpha = beta = 0.1, 0.2), see RESULTS.md
    "figure2_low_weights": ("figure2_injection", ["--weights", "0.1", "0.2"], "figure2_low_weights"),
}
ROOT = Path(__file__).resolve().parents[1]


def run_script(name, args):
    module, extra, subdirectory = VARIANTS.get(name, (name, [], None))
    out = Path(args.out) / subdirectory if subdirectory else Path(args.out)
    command = [sys.executable, "-m", f"experiments.{module}", "--out", str(out), *extra]
    if args.smoke:
        command.append("--smoke")
    command += args.extra
    log_path = Path(args.out) / f"{name}.log"
    common.log(f"run_all: start {name} (log: {log_path})")
    start = time.perf_counter()
    with open(log_path, "w") as log:
        status = subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    seconds = time.perf_counter() - start
    common.log(f"run_all: {name} finished with status {status} in {seconds:.0f}s")
    return {"script": name, "status": status, "seconds": round(seconds, 1), "command": " ".join(command)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="output directory (default: experiments/results/; --smoke: a temporary one)")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--jobs", type=int, default=1, choices=(1, 2))
    p.add_argument("--only", nargs="+", choices=SCRIPTS, help="run only these scripts")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="after --: arguments passed to every script")
    args = p.parse_args(argv)
    args.extra = [a for a in args.extra if a != "--"]
    args.out = common.output_dir(args.out, args.smoke)
    selected = set(args.only or SCRIPTS)
    streams = [[s for s in stream if s in selected] for stream in STREAMS]
    start = time.perf_counter()
    if args.jobs == 1:
        records = [run_script(s, args) for stream in streams for s in stream]
    else:
        with ThreadPoolExecutor(2) as pool:
            futures = [pool.submit(lambda st: [run_script(s, args) for s in st], stream) for stream in streams]
            records = [r for f in futures for r in f.result()]
    total = time.perf_counter() - start
    summary = {
        "smoke": args.smoke, "jobs": args.jobs, "total_seconds": round(total, 1),
        "machine": common.machine_info(), "scripts": records,
    }  # fmt: skip
    with open(args.out / "run_all.json", "w") as handle:
        json.dump(summary, handle, indent=2)
    if not args.smoke and args.out.resolve() == common.DEFAULT_OUT.resolve():
        figures = common.EXPERIMENTS_DIR / "figures"
        figures.mkdir(exist_ok=True)
        for png in args.out.glob("*.png"):
            shutil.copy2(png, figures / png.name)
        for png in (args.out / "figure2_low_weights").glob("*.png"):
            shutil.copy2(png, figures / png.name.replace("figure2_", "figure2_low_weights_"))
    failed = [r["script"] for r in records if r["status"] != 0]
    common.log(f"run_all: {len(records)} scripts in {total:.0f}s; failed: {failed or 'none'}; outputs in {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
