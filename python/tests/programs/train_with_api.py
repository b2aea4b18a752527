#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A training script that talks to Ringmaster through its Python API.

--mode log    DDP with torch's built-in fp16 compression hook; logs loss and accuracy each step with ringmaster.log
--mode stop   DDP; trains until the console asks it to stop (ringmaster.torch.stop_agreed every 2 steps)
--mode watch  no DDP: a plain model whose gradients the loop all-reduces itself, measured through
              ringmaster.torch.watch(model, optimizer), steps marked with ringmaster.step(samples=...)
"""

import argparse
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import ringmaster
import ringmaster.torch

MAX_STEPS = 2000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["log", "stop", "watch"], required=True)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    model = net if args.mode == "watch" else DDP(net)
    if args.mode == "log":
        model._register_builtin_comm_hook(dist.BuiltinCommHookType.FP16_COMPRESS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.mode == "watch":
        ringmaster.torch.watch(model, optimizer)

    generator = torch.Generator().manual_seed(10 + rank)
    steps = MAX_STEPS if args.mode == "stop" else args.steps
    step = 0
    while step < steps:
        x = torch.randn(12, 8, generator=generator)
        y = (x[:, 0] > 0).long()
        optimizer.zero_grad()
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        loss.backward()
        if args.mode == "watch":
            for p in net.parameters():
                dist.all_reduce(p.grad)
                p.grad /= world
        optimizer.step()
        accuracy = (out.argmax(1) == y).float().mean()
        if args.mode == "log":
            ringmaster.log(loss=loss.item(), accuracy=accuracy)
        if args.mode == "watch":
            ringmaster.step(samples=x.shape[0])
        step += 1
        if args.mode == "stop":
            time.sleep(0.01)  # slow enough that the test's stop arrives long before MAX_STEPS
            if step % 2 == 0 and ringmaster.torch.stop_agreed():
                break
    print(f"rank {rank} stopped after {step} steps", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
