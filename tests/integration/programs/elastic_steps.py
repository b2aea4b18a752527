#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A program restarted as torchrun restarts it: it reads TORCHELASTIC_RESTART_COUNT and keeps its own checkpoint.

    ringmaster run -np 2 --max-restarts 1 --no-instrument -- /usr/bin/python3 elastic_steps.py DIR --steps 20
Each rank counts steps, rank 0 writing the step reached to DIR/checkpoint after each one; a restart (not the
first attempt) carries on from there. It prints one line per attempt ("rank R attempt A of MAX from step S") and, at the end, the steps
each attempt ran into DIR/rank<R>.log.
    --crash RANK:STEP   that rank exits with code 3 at that step, in the first attempt only
    --always-crash      ... and in every attempt (at that step or, resumed past it, at its first step)
No PyTorch: what is restarted is the process, and this is the smallest one that behaves like a trainer.
"""

import argparse
import os
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--crash", default="")
    parser.add_argument("--always-crash", action="store_true")
    args = parser.parse_args()

    rank = int(os.environ["RANK"])
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "-1"))
    most = int(os.environ.get("TORCHELASTIC_MAX_RESTARTS", "-1"))
    checkpoint = os.path.join(args.dir, "checkpoint")
    start = 0
    # Only a restart carries on: the first attempt starts afresh, whatever rank 0 has written by the time this
    # rank reads (ranks start at slightly different times).
    if attempt > 0 and os.path.exists(checkpoint):
        with open(checkpoint) as f:
            start = int(f.read().strip() or 0)
    print(f"rank {rank} attempt {attempt} of {most} from step {start}", flush=True)
    crash_rank, crash_step = (int(x) for x in args.crash.split(":")) if args.crash else (-1, -1)
    with open(os.path.join(args.dir, f"rank{rank}.log"), "a") as log:
        log.write(f"attempt {attempt} run {os.environ.get('TORCHELASTIC_RUN_ID', '')} from {start}\n")
    for step in range(start, args.steps):
        if rank == crash_rank and step == max(crash_step, start) and (attempt == 0 or args.always_crash):
            print(f"rank {rank}: crashing at step {step} in attempt {attempt}", file=sys.stderr, flush=True)
            sys.exit(3)
        time.sleep(0.02)
        if rank == 0:
            with open(checkpoint + ".tmp", "w") as f:
                f.write(str(step + 1))
            os.replace(checkpoint + ".tmp", checkpoint)
    print(f"rank {rank} done at step {args.steps}", flush=True)


if __name__ == "__main__":
    main()
