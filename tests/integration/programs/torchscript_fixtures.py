#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a user brings to `ringmaster run --model FILE.pt --data npy:DIR`, made at test time with Debian's torch.

    all DIR       model.pt: a small CNN with batch-norm and a residual connection, torch.jit.script'ed, for 1x28x28
                  inputs and 10 classes; model_rgb.pt: the same for 3 channels; broken/: models Ringmaster must
                  refuse (frozen.pt has a parameter without grad, no_parameters.pt, returns_tuple.pt, state_dict.pt
                  from torch.save, damaged.pt whose code has bytes that are not UTF-8); npy/, npy_uint8/,
                  npy_targets/: train_x.npy, train_y.npy, test_x.npy, test_y.npy with 1x28x28 inputs (a bright
                  square per class under noise; float32, or uint8) and int64 labels, or float32 targets (a fixed
                  linear function of the inputs)
    reference MODEL.pt DIR --steps K --batch B --lr LR --momentum M --seed S [--ranks 2]
                  the same training in PyTorch's own DistributedDataParallel (gloo); prints JSON with rank 0's
                  loss at the first and the last step
"""

import argparse
import json
import os
import socket
import sys
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResidualCnn(nn.Module):
    """conv + batch-norm, a residual block (two conv + batch-norm around an identity), pooling, a classifier."""

    def __init__(self, channels: int = 1, classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(channels, 8, 3, padding=1, bias=False)
        self.bn0 = nn.BatchNorm2d(8)
        self.conv1 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 7 * 7, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn0(self.stem(x)))
        residual = x
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)) + residual)
        x = F.max_pool2d(x, 4)
        return self.fc(x.flatten(1))


def make_model(path: str, channels: int) -> None:
    torch.manual_seed(7)
    torch.jit.script(ResidualCnn(channels)).save(path)


def make_broken(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(7)
    frozen = ResidualCnn()
    frozen.stem.weight.requires_grad_(False)
    torch.jit.script(frozen).save(os.path.join(folder, "frozen.pt"))

    class NoParameters(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x.flatten(1)[:, :10]

    torch.jit.script(NoParameters()).save(os.path.join(folder, "no_parameters.pt"))

    class ReturnsTuple(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(28 * 28, 10)

        def forward(self, x: torch.Tensor):
            y = self.fc(x.flatten(1))
            return y, y

    torch.jit.script(ReturnsTuple()).save(os.path.join(folder, "returns_tuple.pt"))
    torch.save(ResidualCnn().state_dict(), os.path.join(folder, "state_dict.pt"))
    damage(os.path.join(folder, "model_for_damage.pt"), os.path.join(folder, "damaged.pt"))


def damage(scratch: str, path: str) -> None:
    """damaged.pt: a scripted model whose code has bytes that are not UTF-8 (0xff 0xfe) after its class name,
    as a bad disk or a bad copy leaves it; LibTorch quotes them in its error."""
    make_model(scratch, channels=1)
    with zipfile.ZipFile(scratch) as whole, zipfile.ZipFile(path, "w") as damaged:
        for entry in whole.infolist():
            data = whole.read(entry.filename)
            if "/code/" in entry.filename and entry.filename.endswith(".py"):
                data = data.replace(b"class ResidualCnn(", b"class ResidualCnn\xff\xfe(")
            damaged.writestr(entry, data)
    os.remove(scratch)


def make_npy(folder: str, samples: int, uint8: bool, targets: bool) -> None:
    rng = np.random.default_rng(5)
    patterns = np.zeros((10, 1, 28, 28), np.float32)  # class c: a bright 7x7 square in cell c of a 4x4 grid
    for c in range(10):
        patterns[c, 0, (c // 4) * 7:(c // 4) * 7 + 7, (c % 4) * 7:(c % 4) * 7 + 7] = 1.0
    weights = rng.standard_normal((28 * 28, 10)).astype(np.float32) / 28.0
    os.makedirs(folder, exist_ok=True)
    for split, count in (("train", samples), ("test", samples // 4)):
        labels = rng.integers(0, 10, count)
        x = (patterns[labels] + rng.standard_normal((count, 1, 28, 28))).astype(np.float32)
        if uint8:
            x = (np.clip(x * 40 + 128, 0, 255)).astype(np.uint8)
        np.save(os.path.join(folder, f"{split}_x.npy"), x)
        y = (x.reshape(count, -1).astype(np.float32) @ weights) if targets else labels.astype(np.int64)
        np.save(os.path.join(folder, f"{split}_y.npy"), y)


def make_all(args: argparse.Namespace) -> None:
    folder = args.dir
    os.makedirs(folder, exist_ok=True)
    make_model(os.path.join(folder, "model.pt"), channels=1)
    make_model(os.path.join(folder, "model_rgb.pt"), channels=3)
    make_broken(os.path.join(folder, "broken"))
    for name, uint8, targets in (("npy", False, False), ("npy_uint8", True, False), ("npy_targets", False, True)):
        make_npy(os.path.join(folder, name), samples=512, uint8=uint8, targets=targets)


def reference_rank(rank: int, args: argparse.Namespace, port: int, result_path: str) -> None:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    model = ResidualCnn()
    model.load_state_dict(torch.jit.load(args.model).state_dict())  # the very parameters Ringmaster starts from
    ddp = DDP(model)
    x = torch.from_numpy(np.load(os.path.join(args.data, "train_x.npy")))
    y = torch.from_numpy(np.load(os.path.join(args.data, "train_y.npy")))
    sampler = DistributedSampler(TensorDataset(x, y), num_replicas=args.ranks, rank=rank, shuffle=True,
                                 seed=args.seed)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch, sampler=sampler)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=args.momentum)
    losses, epoch = [], 0
    while len(losses) < args.steps:
        sampler.set_epoch(epoch)
        for inputs, labels in loader:
            loss = F.cross_entropy(ddp(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if len(losses) == args.steps:
                break
        epoch += 1
    if rank == 0:
        with open(result_path, "w") as f:
            json.dump({"first_loss": losses[0], "final_loss": losses[-1]}, f)
    dist.destroy_process_group()


def reference(args: argparse.Namespace) -> None:
    import tempfile
    import torch.multiprocessing as mp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        result_path = os.path.join(folder, "result.json")
        mp.spawn(reference_rank, args=(args, port, result_path), nprocs=args.ranks)
        with open(result_path) as f:
            print(f.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    everything = commands.add_parser("all")
    everything.add_argument("dir")
    everything.set_defaults(run=make_all)
    ref = commands.add_parser("reference")
    ref.add_argument("model")
    ref.add_argument("data")
    for name, kind in (("--steps", int), ("--batch", int), ("--lr", float), ("--momentum", float),
                       ("--seed", int)):
        ref.add_argument(name, type=kind, required=True)
    ref.add_argument("--ranks", type=int, default=2)
    ref.set_defaults(run=reference)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
