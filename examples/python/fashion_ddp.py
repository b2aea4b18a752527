#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fashion-MNIST with PyTorch DDP: the DDP half of an example pair (its twin, fashion_horovod.py, trains the same
model on the same data with Horovod's API). It knows nothing of Ringmaster:

    ringmaster run -np 2 --name ddp -- /usr/bin/python3 fashion_ddp.py
    ringmaster run -np 2 --name horovod --horovod -- /usr/bin/python3 fashion_horovod.py
    ringmaster compare ddp horovod

An MLP (784-512-512-256-10) on the first --samples images of Debian's dataset-fashion-mnist, gloo, SGD with
momentum; every rank starts from rank 0's parameters and takes its share of each epoch (DistributedSampler).
"""

import argparse
import gzip
import hashlib

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
    parser.add_argument("--print-losses", action="store_true", help="every step's loss, on every rank")
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = DDP(mlp())
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    data = load(args.samples)
    sampler = DistributedSampler(data, shuffle=True, seed=1)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler, drop_last=True)

    step, epoch = 0, 0
    while step < args.steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            if args.print_losses:
                print(f"rank {rank} step {step} loss {loss.item():.7f}", flush=True)
            step += 1
            if step == args.steps:
                break
        epoch += 1

    print(f"rank {rank} trained {step} steps, last loss {loss.item():.4f}, parameters {checksum(model.module)}",
          flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
