#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/straggler-detection: how often Ringmaster's straggler finding is right, on real runs.

Two figures, each from real `ringmaster run` jobs on this machine, each run stored in a scratch history:
- false positives: clean runs of built-in models (2 and 4 ranks, ddp and horovod, no injected fault); a run
  counts when any straggler finding of warning or critical severity accuses a rank. Goal: 0.
- sensitivity: `--inject-straggler 1:10` on cnn / Fashion-MNIST with 4 ranks for 100 steps; a run counts when
  rank 1, and no other rank, is accused by the end of those 100 steps (the console checks the same diagnosis
  live, so found by the end of the run is found within 100 steps). Goal: at least 9 of 10.
Findings are read from each run's --summary-json. The figures depend on the machine's noise: quote the load.
With --keep STORE the runs stay in that run store, and `straggler_replay STORE [settings]` shows which ranks the
detector would accuse in each of them with other settings.

  bench/straggler-detection/straggler_detection.py --ringmaster build/dev/bin/ringmaster [--clean 20 --injected 10]
      [--keep STORE]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# The clean runs cycle through these: (ranks, model, data, engine, steps).
CLEAN = [
    (4, "cnn", "fashion-mnist", "ddp", 150),
    (2, "cnn", "fashion-mnist", "ddp", 150),
    (4, "mlp", "synthetic", "horovod", 150),
    (4, "cnn", "fashion-mnist", "horovod", 150),
    (2, "mlp", "fashion-mnist", "ddp", 150),
]
INJECTED = (4, "cnn", "fashion-mnist", "ddp", 100)


def run(ringmaster, store, folder, index, shape, inject):
    ranks, model, data, engine, steps = shape
    summary = os.path.join(folder, f"run{index}.json")
    command = [ringmaster, "run", "-np", str(ranks), "--model", model, "--data", data, "--engine", engine,
               "--steps", str(steps), "--store", store, "--summary-json", summary]
    if inject:
        command += ["--inject-straggler", inject]
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=900)
    took = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"straggler_detection: {' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    with open(summary) as f:
        findings = json.load(f).get("findings", [])
    accused = sorted({f["rank"] for f in findings
                      if f["kind"] == "KIND_STRAGGLER" and f["severity"] in ("SEVERITY_WARNING", "SEVERITY_CRITICAL")})
    label = f"{ranks} ranks {model}/{data} {engine} {steps} steps" + (f" --inject-straggler {inject}" if inject else "")
    print(f"  {label}: accused {accused if accused else 'none'} ({took:.0f} s)", flush=True)
    return accused


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ringmaster", required=True, help="the ringmaster CLI to run")
    parser.add_argument("--clean", type=int, default=20, help="clean runs (default 20)")
    parser.add_argument("--injected", type=int, default=10, help="runs with a straggler injected (default 10)")
    parser.add_argument("--keep", metavar="STORE",
                        help="keep the runs in this run store (e.g. to replay them with straggler_replay)")
    args = parser.parse_args()
    if not os.access(args.ringmaster, os.X_OK):
        sys.exit(f"straggler_detection: --ringmaster {args.ringmaster}: not an executable; build it first")

    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="rm-straggler-bench-") as folder:
        store = args.keep or os.path.join(folder, "runs.db")
        false_alarms = 0
        found = 0
        print(f"clean runs ({args.clean}):")
        # Clean and injected runs alternate, so that drift in the machine's load touches both alike.
        for i in range(max(args.clean, args.injected)):
            if i < args.clean and run(args.ringmaster, store, folder, 2 * i, CLEAN[i % len(CLEAN)], None):
                false_alarms += 1
            if i < args.injected:
                accused = run(args.ringmaster, store, folder, 2 * i + 1, INJECTED, "1:10")
                if accused == [1]:
                    found += 1
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    print(f"false positives: {false_alarms} of {args.clean} clean runs accused a rank (goal: 0)")
    print(f"sensitivity: rank 1 (+10 ms/step, 4 ranks, cnn) found alone within 100 steps in {found} of "
          f"{args.injected} runs (goal: at least 90%)")
    return 0 if false_alarms == 0 and found * 10 >= 9 * args.injected else 1


if __name__ == "__main__":
    sys.exit(main())
