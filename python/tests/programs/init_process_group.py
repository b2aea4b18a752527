#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The least a DDP program does: torchrun's environment, init_process_group on gloo, one all-reduce. Prints the
USE_LIBUV it started its process group with, then the all-reduced sum."""

import os

import torch
import torch.distributed as dist


def main():
    print(f"USE_LIBUV={os.environ.get('USE_LIBUV', 'unset')}", flush=True)
    dist.init_process_group("gloo")
    value = torch.tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(value)
    print(f"rank {dist.get_rank()} sum {value.item():g}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
