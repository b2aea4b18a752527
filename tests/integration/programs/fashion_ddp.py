#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A PyTorch DDP training script on Fashion-MNIST as users write them: it knows nothing of Ringmaster.

Start one process per rank with torchrun's environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), e.g.
    ringmaster run -np 2 -- /usr/bin/python3 fashion_ddp.py --steps 40
An MLP on the first --samples images of Debian's dataset-fashion-mnist, gloo, SGD. Its 3 MiB of gradients fill
DDP's first bucket (1 MiB: the last layers) and a second one, so every step has two all-reduces.

The misbehaviours the diagnosis must catch, each on one rank:
    --slow-data RANK:MS        that rank's data path sleeps MS milliseconds per batch (a slow disk or decoder)
    --keep-tensors RANK        that rank keeps every step's batch and output alive (the classic leak)
    --stop-collectives RANK:STEP  from that step on that rank stops calling collectives (it sleeps)
    --raise RANK:STEP          that rank raises at that step

With --spawn N the one process started spawns N ranks itself (torch.multiprocessing.spawn, the classic
single-node launch), each calling init_process_group(rank=r, world_size=N); --loader-workers forks DataLoader
workers in every rank.
"""

import argparse
import datetime
import gzip
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path, header_bytes):
    with gzip.open(path, "rb") as f:
        return torch.frombuffer(bytearray(f.read()[header_bytes:]), dtype=torch.uint8)


def load(samples):
    images = read_idx(f"{DATA}/train-images-idx3-ubyte.gz", 16).view(-1, 28 * 28)[:samples]
    labels = read_idx(f"{DATA}/train-labels-idx1-ubyte.gz", 8)[:samples]
    return TensorDataset(images.float() / 255.0, labels.long())


def rank_and_value(text, cast):
    rank, value = text.split(":")
    return int(rank), cast(value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--samples", type=int, default=8192)
    parser.add_argument("--slow-data", default="")
    parser.add_argument("--keep-tensors", type=int, default=-1)
    parser.add_argument("--stop-collectives", default="")
    parser.add_argument("--raise", dest="raise_at", default="")
    parser.add_argument("--timeout-s", type=float, default=600)
    parser.add_argument("--warmup", type=int, default=5, help="steps before the samples/s this rank reports")
    parser.add_argument("--spawn", type=int, default=0, help="ranks this process spawns itself")
    parser.add_argument("--loader-workers", type=int, default=0)
    parser.add_argument("--extra-all-reduce", default="", help="RANK:STEP, an all_reduce only that rank calls")
    parser.add_argument("--unreported-rank", type=int, default=-1,
                        help="a spawned rank started without the job's telemetry socket")
    parser.add_argument("--refused-rank", type=int, default=-1,
                        help="a spawned rank that presents a wrong secret, which the agent refuses")
    parser.add_argument("--layer-after-wrap", action="store_true",
                        help="add a layer to the model after DDP wrapped it (its parameters then drift)")
    args = parser.parse_args()
    if args.spawn > 0:
        torch.multiprocessing.spawn(train, args=(args,), nprocs=args.spawn)
    else:
        train(None, args)


def train(spawned_rank, args):
    if spawned_rank is not None and spawned_rank == args.unreported_rank:
        os.environ.pop("RINGMASTER_TELEMETRY_SOCKET", None)
    if spawned_rank is not None and spawned_rank == args.refused_rank:
        os.environ["RINGMASTER_JOB_SECRET"] = "not-the-secret"
    timeout = datetime.timedelta(seconds=args.timeout_s)
    if spawned_rank is None:
        dist.init_process_group("gloo", timeout=timeout)
    else:
        dist.init_process_group("gloo", rank=spawned_rank, world_size=args.spawn, timeout=timeout)
    rank = dist.get_rank()
    slow_rank, slow_ms = rank_and_value(args.slow_data, float) if args.slow_data else (-1, 0)
    stop_rank, stop_step = rank_and_value(args.stop_collectives, int) if args.stop_collectives else (-1, 0)
    raise_rank, raise_step = rank_and_value(args.raise_at, int) if args.raise_at else (-1, 0)
    extra_rank, extra_step = (rank_and_value(args.extra_all_reduce, int) if args.extra_all_reduce
                              else (-1, 0))

    torch.manual_seed(0)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                    torch.nn.ReLU(), torch.nn.Linear(512, 256), torch.nn.ReLU(),
                                    torch.nn.Linear(256, 10)))
    if args.layer_after_wrap:
        model.module.add_module("head", torch.nn.Linear(10, 10))  # DDP neither broadcasts nor all-reduces it
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = load(args.samples)
    sampler = DistributedSampler(data, shuffle=True, seed=1)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler, drop_last=True,
                        num_workers=args.loader_workers)

    kept = []
    step, epoch = 0, 0
    warm_start = None
    while step < args.steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            if rank == slow_rank:
                time.sleep(slow_ms / 1000)
            if rank == stop_rank and step == stop_step:
                print(f"rank {rank} stops calling collectives at step {step}", flush=True)
                time.sleep(3600)
            if rank == raise_rank and step == raise_step:
                raise RuntimeError(f"rank {rank} cannot go on at step {step}")
            if rank == extra_rank and step == extra_step:
                print(f"rank {rank} calls an all_reduce the others do not at step {step}", flush=True)
                dist.all_reduce(torch.ones(1))
            optimizer.zero_grad()
            output = model(x)
            loss = torch.nn.functional.cross_entropy(output, y)
            loss.backward()
            optimizer.step()
            if rank == args.keep_tensors:
                kept.append((x.clone(), output))  # the output holds its whole graph
            step += 1
            if step == args.warmup:
                warm_start = time.perf_counter()
            if step == args.steps:
                break
        epoch += 1

    print(f"rank {rank} trained {step} steps, last loss {loss.item():.4f}", flush=True)
    if warm_start is not None and step > args.warmup:
        rate = (step - args.warmup) * args.batch / (time.perf_counter() - warm_start)
        print(f"rank {rank} steady samples/s {rate:.1f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
