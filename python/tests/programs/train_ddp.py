#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A plain PyTorch DDP training script, as a user writes it: it knows nothing of Ringmaster.

Run one process per rank with torchrun's environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT). A tiny MLP on
synthetic data, gloo backend, SGD. Its middle layer fills DDP's first bucket (1 MiB), so every step has two
all-reduces.
"""

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Sleep(torch.nn.Module):
    """Extra compute time on one rank: the straggler the others wait for."""

    def __init__(self, ms):
        super().__init__()
        self.seconds = ms / 1000

    def forward(self, x):
        time.sleep(self.seconds)
        return x


hook_calls = 0


def counting_allreduce(process_group, bucket):
    """The program's own communication hook: counts its calls, then all-reduces as DDP would."""
    global hook_calls
    hook_calls += 1
    return default_hooks.allreduce_hook(process_group, bucket)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--loader-workers", type=int, default=0)
    parser.add_argument("--slow-rank", default="", help="RANK:MS, extra forward time on one rank")
    parser.add_argument("--own-hook", action="store_true")
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    layers = [torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
              torch.nn.Linear(512, 10)]
    if args.slow_rank:
        slow, ms = (int(v) for v in args.slow_rank.split(":"))
        if rank == slow:
            layers.insert(0, Sleep(ms))
    model = DDP(torch.nn.Sequential(*layers), bucket_cap_mb=0.1)
    if args.own_hook:
        model.register_comm_hook(dist.group.WORLD, counting_allreduce)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    generator = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(512, 64, generator=generator), torch.randint(0, 10, (512,), generator=generator))
    sampler = DistributedSampler(data, shuffle=True, seed=2)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler, num_workers=args.loader_workers)

    step, epoch = 0, 0
    while step < args.steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            if step == args.steps:
                break
        epoch += 1

    print(f"rank {rank} trained {step} steps, last loss {loss.item():.6f}", flush=True)
    if args.own_hook:
        print(f"rank {rank} own hook calls {hook_calls}", flush=True)
    print(f"rank {rank} chained sitecustomize: {os.environ.get('CHAINED_SITECUSTOMIZE', 'no')}", flush=True)
    rpc = sorted(name for name in sys.modules if name.split(".")[0] in ("grpc", "google"))
    print(f"rank {rank} rpc modules: {' '.join(rpc) or 'none'}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
