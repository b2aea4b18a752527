#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A Horovod training script as users write them: hvd.init, DistributedOptimizer, broadcast_parameters, a
metric averaged with hvd.allreduce at the end. A tiny MLP on synthetic data; its 64-512-512-10 layers make two
gradient buckets (the last layers' 1 MiB first bucket, then the rest).

    --fp16                      gradients travel as float16
    --extra-collective RANK:STEP  that rank calls an allreduce named "extra" before that step, which no other
                                rank calls (the stall the inspector must name)
"""

import argparse

import horovod.torch as hvd
import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--extra-collective", default="")
    args = parser.parse_args()
    odd_rank, odd_step = (int(v) for v in args.extra_collective.split(":")) if args.extra_collective else (-1, -1)

    hvd.init()
    rank = hvd.rank()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 10))
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9),
                                         named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.fp16 else hvd.Compression.none)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    generator = torch.Generator().manual_seed(1 + rank)
    for step in range(args.steps):
        if rank == odd_rank and step == odd_step:
            print(f"rank {rank} calls an allreduce no other rank calls, before step {step}", flush=True)
            hvd.allreduce(torch.ones(1), name="extra")
        x, y = torch.randn(args.batch, 64, generator=generator), torch.randint(0, 10, (args.batch,),
                                                                              generator=generator)
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    mean_loss = hvd.allreduce(loss.detach(), name="mean loss").item()
    print(f"rank {rank} trained {args.steps} steps, mean loss {mean_loss:.6f}", flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
