#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fashion-MNIST with Horovod's API: the Horovod half of an example pair (its twin, fashion_ddp.py, trains the same
model on the same data with PyTorch DDP). A plain Horovod script; with Ringmaster it needs no Horovod or MPI:

    ringmaster run -np 2 --name horovod --horovod -- /usr/bin/python3 fashion_horovod.py

An MLP (784-512-512-256-10) on the first --samples images of Debian's dataset-fashion-mnist, SGD with momentum
wrapped in hvd.DistributedOptimizer; rank 0's parameters and optimizer state are broadcast at the start.
    --fp16-allreduce   gradients travel as float16 (hvd.Compression.fp16)
    --accumulate K     each step's batch in K micro-batches, reduced once (backward_passes_per_step=K)
"""

import argparse
import gzip
import hashlib

import horovod.torch as hvd
import torch
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


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                               torch.nn.ReLU(), torch.nn.Linear(512, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 10))


def checksum(model):
    digest = hashlib.blake2b(digest_size=8)
    for p in model.parameters():
        digest.update(p.detach().float().contiguous().numpy().tobytes())
    return digest.hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=64, help="samples per rank and step")
    parser.add_argument("--samples", type=int, default=16384)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--fp16-allreduce", action="store_true")
    parser.add_argument("--accumulate", type=int, default=1, help="micro-batches per step")
    parser.add_argument("--print-losses", action="store_true", help="every step's loss, on every rank")
    args = parser.parse_args()

    hvd.init()
    rank = hvd.rank()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(),
        compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none,
        backward_passes_per_step=args.accumulate)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    data = load(args.samples)
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=rank, shuffle=True, seed=1)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler, drop_last=True)

    step, epoch = 0, 0
    while step < args.steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = 0.0
            for xs, ys in zip(x.chunk(args.accumulate), y.chunk(args.accumulate)):
                micro = torch.nn.functional.cross_entropy(model(xs), ys) / args.accumulate
                micro.backward()
                loss += micro.item()
            optimizer.step()
            if args.print_losses:
                print(f"rank {rank} step {step} loss {loss:.7f}", flush=True)
            step += 1
            if step == args.steps:
                break
        epoch += 1

    print(f"rank {rank} trained {step} steps, last loss {loss:.4f}, parameters {checksum(model)}", flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
