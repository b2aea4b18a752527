#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/peer-ddp: Ringmaster's two engines against PyTorch's own DistributedDataParallel.

Runs the same model, batch, data, optimizer and rank count three ways on this machine, one after another:
PyTorch DDP (python3-torch, gloo backend), ringmaster-worker --engine ddp and ringmaster-worker --engine horovod.
The row "resnet18 (TorchScript)" gives the workers a user's model instead of their built-in one: this file's
ResNet-18 (torchvision's code, CIFAR stem) exported with torch.jit.script, on the same synthetic images saved as
.npy files (--model FILE.pt --data npy:DIR); PyTorch DDP trains the same network eagerly, as its users do.
Every rank gets the same number of intra-op threads (torch.set_num_threads / at::set_num_threads via
OMP_NUM_THREADS). The data path is the same too: the dataset is decoded once into a tensor, a DistributedSampler
shuffles it, and each batch is one index_select. Throughput is the sum over ranks of samples per second over the
steps after the first tenth (warm-up); rendezvous and data loading are not timed.

Only /usr/bin/python3 has Debian's torch; run this file with it:
  /usr/bin/python3 bench/peer-ddp/peer_ddp.py --worker build/bin/ringmaster-worker
"""

import argparse
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"
SYNTHETIC_TRAIN_SIZE = 2048  # as worker/datasets.h
# What ringmaster-worker sets with mallopt at start (worker/worker_run.cpp): keep activation memory in the
# process instead of faulting it in again every step. --same-malloc gives the PyTorch ranks the same.
SAME_MALLOC = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------------------------------------------
# The PyTorch side: one rank of torch.nn.parallel.DistributedDataParallel. Models mirror worker/models.cpp.
# --------------------------------------------------------------------------------------------------------------

def build_model(name, channels, side, classes=10):
    import torch.nn as nn
    import torch.nn.functional as F

    class Cnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(channels, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc1 = nn.Linear(32 * (side // 4) * (side // 4), 128)
            self.fc2 = nn.Linear(128, classes)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return self.fc2(F.relu(self.fc1(x.flatten(1))))

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                                                nn.BatchNorm2d(planes))

        def forward(self, x):
            identity = self.downsample(x) if self.downsample is not None else x
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + identity)

    class ResNet18(nn.Module):
        # torchvision's resnet18 with the CIFAR stem (3x3 conv, no max-pool), as ringmaster for 32x32 inputs.
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(channels, 64, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            layers, inplanes = [], 64
            for i, planes in enumerate([64, 128, 256, 512]):
                blocks = []
                for b in range(2):
                    blocks.append(BasicBlock(inplanes, planes, 2 if i > 0 and b == 0 else 1))
                    inplanes = planes
                layers.append(nn.Sequential(*blocks))
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.fc = nn.Linear(512, classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

        def forward(self, x):
            x = F.relu(self.bn1(self.conv1(x)))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))

    if name == "cnn":
        return Cnn()
    if name == "resnet18":
        return ResNet18()
    raise SystemExit(f"peer-ddp: no PyTorch twin for model {name}")


def load_data(name, model, seed):
    import numpy as np
    import torch
    if name == "fashion-mnist":
        def idx(path, offset):
            with gzip.open(path, "rb") as f:
                return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)
        images = idx(f"{FASHION_MNIST_DIR}/train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
        labels = idx(f"{FASHION_MNIST_DIR}/train-labels-idx1-ubyte.gz", 8)
        images = (torch.from_numpy(images.copy()).float() / 255.0 - 0.2860) / 0.3530
        return images.contiguous(), torch.from_numpy(labels.copy()).long()
    shape = (3, 32, 32) if model.startswith("resnet") else (1, 28, 28)
    g = torch.Generator()
    g.manual_seed(seed)
    images = torch.randn((SYNTHETIC_TRAIN_SIZE,) + shape, generator=g)
    labels = torch.randint(0, 10, (SYNTHETIC_TRAIN_SIZE,), generator=g)
    return images, labels


def export_torchscript(cfg, args, workdir):
    """The user's side of `--model FILE.pt --data npy:DIR`: the model scripted and saved, the data saved with numpy."""
    import numpy as np
    import torch
    images, labels = load_data(cfg["data"], cfg["model"], args.seed)
    torch.manual_seed(args.seed)
    model_path = os.path.join(workdir, f"{cfg['model']}.pt")
    torch.jit.script(build_model(cfg["model"], images.shape[1], images.shape[2])).save(model_path)
    data_dir = os.path.join(workdir, f"{cfg['data']}-npy")
    os.makedirs(data_dir, exist_ok=True)
    np.save(os.path.join(data_dir, "train_x.npy"), images.numpy().astype(np.float32))
    np.save(os.path.join(data_dir, "train_y.npy"), labels.numpy().astype(np.int64))
    return model_path, "npy:" + data_dir


def pytorch_rank(args):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel
    from torch.utils.data.distributed import DistributedSampler

    torch.set_num_threads(args.threads)
    images, labels = load_data(args.data, args.model, args.seed)
    torch.manual_seed(args.seed)
    model = build_model(args.model, images.shape[1], images.shape[2])
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=args.rank,
                            world_size=args.world)
    model = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    sampler = DistributedSampler(range(len(labels)), num_replicas=args.world, rank=args.rank, seed=args.seed)
    batches_per_epoch = (len(sampler) + args.batch - 1) // args.batch
    warmup = max(1, args.steps // 10)
    epoch, position, timed_samples, timed_seconds = -1, batches_per_epoch, 0, 0.0
    for step in range(args.steps):
        if position == batches_per_epoch:
            epoch, position = epoch + 1, 0
            sampler.set_epoch(epoch)
            indices = torch.tensor(list(iter(sampler)), dtype=torch.long)
        start = time.perf_counter()
        batch = indices[position * args.batch:(position + 1) * args.batch]
        x, y = images.index_select(0, batch), labels.index_select(0, batch)
        position += 1
        loss = F.cross_entropy(model(x), y)
        loss.item()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step >= warmup:
            timed_seconds += time.perf_counter() - start
            timed_samples += len(batch)
    with open(args.out, "w") as f:
        json.dump({"steady_samples_per_s": timed_samples / timed_seconds}, f)
    dist.destroy_process_group()


# --------------------------------------------------------------------------------------------------------------
# The driver: start N ranks of each contender, collect each rank's steady samples/s.
# --------------------------------------------------------------------------------------------------------------

def run_ranks(commands_and_envs, timeout):
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for cmd, env in commands_and_envs]
    failed = []
    for rank, p in enumerate(procs):
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise SystemExit(f"peer-ddp: rank {rank} timed out after {timeout} s")
        if p.returncode != 0:
            failed.append(f"rank {rank} exited {p.returncode}: {err.strip()[-2000:]}")
    if failed:
        raise SystemExit("peer-ddp: " + "\n".join(failed))


def base_env(threads):
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def pytorch_throughput(cfg, args, workdir):
    port = free_port()
    jobs, outs = [], []
    env = base_env(args.threads)
    if args.same_malloc:
        env["GLIBC_TUNABLES"] = SAME_MALLOC
    for rank in range(args.ranks):
        out = os.path.join(workdir, f"pytorch.{rank}.json")
        outs.append(out)
        cmd = [sys.executable, os.path.abspath(__file__), "--pytorch-rank", str(rank), "--world", str(args.ranks),
               "--port", str(port), "--model", cfg["model"], "--data", cfg["data"], "--batch", str(cfg["batch"]),
               "--steps", str(cfg["steps"]), "--threads", str(args.threads), "--lr", str(args.lr),
               "--momentum", str(args.momentum), "--seed", str(args.seed), "--out", out]
        jobs.append((cmd, env))
    run_ranks(jobs, args.timeout)
    return sum(json.load(open(o))["steady_samples_per_s"] for o in outs)


def ringmaster_throughput(engine, cfg, args, workdir, extra=()):
    port = free_port()
    jobs, outs = [], []
    for rank in range(args.ranks):
        out = os.path.join(workdir, f"{engine}.{rank}.json")
        outs.append(out)
        model, data = cfg.get("user_files", (cfg["model"], cfg["data"]))
        cmd = [args.worker, "--engine", engine, "--model", model, "--data", data,
               "--batch-size", str(cfg["batch"]), "--steps", str(cfg["steps"]), "--lr", str(args.lr),
               "--momentum", str(args.momentum), "--seed", str(args.seed), "--summary-json", out, *extra]
        env = base_env(args.threads)
        env.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(args.ranks),
                   LOCAL_WORLD_SIZE=str(args.ranks), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        env.pop("RINGMASTER_AGENT", None)
        jobs.append((cmd, env))
    run_ranks(jobs, args.timeout)
    summaries = [json.load(open(o)) for o in outs]
    threads = {s["threads"] for s in summaries}
    if threads != {args.threads}:
        raise SystemExit(f"peer-ddp: ringmaster ranks ran with {threads} threads, expected {args.threads}")
    return sum(s["steady_samples_per_s"] for s in summaries)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", help="path of ringmaster-worker")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads per rank, for every contender")
    parser.add_argument("--cnn-steps", type=int, default=300)
    parser.add_argument("--resnet-steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2, help="runs of each contender; the best one counts")
    parser.add_argument("--median", action="store_true",
                        help="the median of the rounds counts instead of the best; each round is printed")
    parser.add_argument("--no-cache-column", action="store_true",
                        help="also run horovod with --no-response-cache in each round (column hvd-nc)")
    parser.add_argument("--rows", default="cnn,resnet18,resnet18-torchscript",
                        help="which rows to run, comma-separated (default: all)")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--same-malloc", action="store_true",
                        help="give the PyTorch ranks ringmaster-worker's malloc settings (GLIBC_TUNABLES), so that "
                             "only the frameworks' own work differs")
    # One PyTorch rank (the driver starts these).
    parser.add_argument("--pytorch-rank", type=int)
    parser.add_argument("--world", type=int)
    parser.add_argument("--port", type=int)
    parser.add_argument("--model")
    parser.add_argument("--data")
    parser.add_argument("--batch", type=int)
    parser.add_argument("--steps", type=int)
    parser.add_argument("--out")
    args = parser.parse_args()

    if args.pytorch_rank is not None:
        args.rank = args.pytorch_rank
        pytorch_rank(args)
        return
    if not args.worker or not os.access(args.worker, os.X_OK):
        raise SystemExit("peer-ddp: give --worker PATH of a built ringmaster-worker")

    import torch
    configs = [
        {"row": "cnn", "model": "cnn", "data": "fashion-mnist", "batch": 64, "steps": args.cnn_steps},
        {"row": "resnet18", "model": "resnet18", "data": "synthetic", "batch": 32, "steps": args.resnet_steps},
        {"row": "resnet18-torchscript", "model": "resnet18", "data": "synthetic", "batch": 32,
         "steps": args.resnet_steps, "torchscript": True},
    ]
    rows = args.rows.split(",")
    unknown = set(rows) - {cfg["row"] for cfg in configs}
    if unknown:
        raise SystemExit(f"peer-ddp: no row {', '.join(sorted(unknown))}; rows: cnn, resnet18, resnet18-torchscript")
    configs = [cfg for cfg in configs if cfg["row"] in rows]
    print(f"peer-ddp: {args.ranks} ranks on 127.0.0.1, gloo, {args.threads} intra-op thread(s) per rank for every "
          f"contender (torch.set_num_threads({args.threads}) in PyTorch, OMP_NUM_THREADS={args.threads} -> "
          f"at::set_num_threads in ringmaster-worker); {os.cpu_count()} cores; PyTorch {torch.__version__}")
    statistic = "median" if args.median else "best"
    print(f"SGD lr {args.lr} momentum {args.momentum}; samples/s summed over ranks, steps after the first tenth; "
          f"{statistic} of {args.rounds} alternating round(s)")
    print("malloc: ringmaster-worker keeps activation memory (mallopt: mmap threshold 32 MiB, no trim below "
          "1 GiB); PyTorch ranks " + ("get the same (GLIBC_TUNABLES)" if args.same_malloc
                                       else "run with glibc's defaults (--same-malloc gives them the same)"))
    print()
    header = f"{'model/data':<34}{'batch':>6}{'steps':>7}{'PyTorch DDP':>14}{'RM ddp':>10}{'RM horovod':>12}" \
             f"{'ddp/PT':>9}{'hvd/PT':>9}" + (f"{'hvd-nc/PT':>11}" if args.no_cache_column else "")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="peer-ddp-") as workdir:
        for cfg in configs:
            if cfg.get("torchscript"):
                cfg["user_files"] = export_torchscript(cfg, args, workdir)
            runs = {"pytorch": [], "ddp": [], "horovod": [], "hvd-nc": []}
            for round_ in range(args.rounds):
                runs["pytorch"].append(pytorch_throughput(cfg, args, workdir))
                runs["ddp"].append(ringmaster_throughput("ddp", cfg, args, workdir))
                runs["horovod"].append(ringmaster_throughput("horovod", cfg, args, workdir))
                if args.no_cache_column:
                    runs["hvd-nc"].append(
                        ringmaster_throughput("horovod", cfg, args, workdir, ["--no-response-cache"]))
                if args.median:
                    print(f"  round {round_ + 1}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in runs.items() if v),
                          flush=True)
            pick = statistics.median if args.median else max
            best = {k: pick(v) for k, v in runs.items() if v}
            name = f"{cfg['model']}{' (TorchScript)' if cfg.get('torchscript') else ''}/{cfg['data']}"
            print(f"{name:<34}{cfg['batch']:>6}{cfg['steps']:>7}{best['pytorch']:>14.1f}{best['ddp']:>10.1f}"
                  f"{best['horovod']:>12.1f}{best['ddp'] / best['pytorch']:>8.3f}x"
                  f"{best['horovod'] / best['pytorch']:>8.3f}x"
                  + (f"{best['hvd-nc'] / best['pytorch']:>10.3f}x" if args.no_cache_column else ""), flush=True)
    print()
    print("goal: ddp/PT >= 1.0x, hvd/PT >= 0.95x")


if __name__ == "__main__":
    main()
