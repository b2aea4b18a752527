#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A Horovod script that checks Horovod's semantics of each call it makes, on however many ranks it runs: it
prints "ok <what>" for each check that held and raises at the first that does not. Run with `import horovod`
resolving to Ringmaster's layer (RINGMASTER_HOROVOD=1 and the bootstrap on PYTHONPATH)."""

import math
import sys

import torch

import horovod
import horovod.torch as hvd


def ok(what):
    print(f"rank {hvd.rank()} ok {what}", flush=True)


def expect_raises(kind, call, *words):
    try:
        call()
    except kind as e:
        for word in words:
            assert word in str(e), f"{word!r} not in {e}"
        return
    raise AssertionError(f"{call} did not raise {kind.__name__}")


def main():
    assert getattr(horovod, "RINGMASTER_LAYER", False), "a real Horovod was imported"
    expect_raises(ValueError, hvd.rank, "Horovod has not been initialized; use hvd.init().")
    expect_raises(ValueError, hvd.size, "hvd.init()")
    assert not hvd.is_initialized()
    hvd.init()
    hvd.init()  # again: nothing happens
    r, n = hvd.rank(), hvd.size()
    assert hvd.is_initialized() and 0 <= r < n
    assert (hvd.local_rank(), hvd.local_size(), hvd.cross_rank(), hvd.cross_size()) == (r, n, 0, 1)
    assert hvd.gloo_built() and hvd.gloo_enabled() and not hvd.mpi_built() and not hvd.mpi_enabled()
    assert isinstance(hvd.nccl_built(), int)
    assert (hvd.Average, hvd.Sum, hvd.Adasum, hvd.Min, hvd.Max, hvd.Product) == (0, 1, 2, 3, 4, 5)
    ok("init and the job's facts")

    mine = torch.tensor([float(r + 1), 2.0 * (r + 1)])
    total = sum(range(1, n + 1))
    assert torch.equal(hvd.allreduce(mine, op=hvd.Sum), torch.tensor([total, 2.0 * total]))
    assert torch.allclose(hvd.allreduce(mine), torch.tensor([total / n, 2.0 * total / n]))
    assert torch.equal(mine, torch.tensor([float(r + 1), 2.0 * (r + 1)])), "allreduce changed its input"
    assert torch.equal(hvd.allreduce(mine, op=hvd.Min), torch.tensor([1.0, 2.0]))
    assert torch.equal(hvd.allreduce(mine, op=hvd.Max), torch.tensor([float(n), 2.0 * n]))
    assert torch.equal(hvd.allreduce(torch.tensor([float(r + 1)]), op=hvd.Product),
                       torch.tensor([float(math.factorial(n))]))
    assert torch.equal(hvd.allreduce(mine, average=False), hvd.allreduce(mine, op=hvd.Sum))
    expect_raises(ValueError, lambda: hvd.allreduce(mine, average=True, op=hvd.Sum), "supersedes average")
    scaled = hvd.allreduce(mine, op=hvd.Sum, prescale_factor=2.0, postscale_factor=0.5)
    assert torch.equal(scaled, torch.tensor([total, 2.0 * total]))
    in_place = mine.clone()
    assert hvd.allreduce_(in_place, op=hvd.Sum) is in_place and in_place[0] == total
    ints = torch.tensor([r * 3 + 1], dtype=torch.int64)
    assert hvd.allreduce(ints, op=hvd.Sum).dtype == torch.int64
    flags = torch.tensor([r == 0, True])
    assert torch.equal(hvd.allreduce(flags, op=hvd.Min), torch.tensor([n == 1, True]))
    halves = torch.tensor([1.5], dtype=torch.bfloat16)
    assert hvd.allreduce(halves, op=hvd.Sum).dtype == torch.bfloat16
    columns = torch.arange(6.0).view(2, 3).t()  # not contiguous
    assert torch.equal(hvd.allreduce(columns, op=hvd.Sum), columns * n)
    ok("allreduce: ops, scaling, types and layouts")

    handle = hvd.allreduce_async(mine, name="async", op=hvd.Sum)
    while not hvd.poll(handle):
        pass
    assert torch.equal(hvd.synchronize(handle), torch.tensor([total, 2.0 * total]))
    assert hvd.synchronize(handle) is None, "a handle is synchronized once"
    handle = hvd.allreduce_async_(in_place.fill_(1.0), op=hvd.Sum)
    assert hvd.synchronize(handle) is in_place and in_place[0] == n
    grouped = hvd.grouped_allreduce([torch.ones(3), torch.full((2, 2), 2.0), torch.ones(1, dtype=torch.int64)],
                                    op=hvd.Sum)
    assert torch.equal(grouped[0], torch.full((3,), float(n))) and torch.equal(grouped[1], torch.full((2, 2), 2.0 * n))
    assert grouped[2].dtype == torch.int64 and grouped[2].item() == n
    ok("async handles, poll, synchronize, grouped allreduce")

    rows = torch.full((r + 1, 2), float(r))  # each rank its own number of rows
    gathered = hvd.allgather(rows)
    assert gathered.shape == (n * (n + 1) // 2, 2)
    assert torch.equal(gathered[:, 0], torch.cat([torch.full((k + 1,), float(k)) for k in range(n)]))
    assert torch.equal(hvd.allgather(torch.tensor(float(r))), torch.arange(float(n)))
    ok("allgather with unequal first dimensions")

    value = torch.full((3,), float(r))
    assert torch.equal(hvd.broadcast(value, root_rank=n - 1), torch.full((3,), float(n - 1)))
    assert value[0] == r, "broadcast changed its input"
    hvd.broadcast_(value, root_rank=0)
    assert torch.equal(value, torch.zeros(3))
    expect_raises(ValueError, lambda: hvd.broadcast(value, root_rank=n), "root_rank")
    assert hvd.broadcast_object({"rank": r, "text": "é"}, root_rank=0) == {"rank": 0, "text": "é"}
    assert hvd.allgather_object(("r", r)) == [("r", k) for k in range(n)]
    ok("broadcast, broadcast_object, allgather_object")

    # alltoall: rank r sends k+1 rows of value 10r+k to rank k.
    splits = [k + 1 for k in range(n)]
    parts = torch.cat([torch.full((k + 1,), float(10 * r + k)) for k in range(n)])
    received, counts = hvd.alltoall(parts, splits=splits)
    assert counts.tolist() == [r + 1] * n
    assert torch.equal(received, torch.cat([torch.full((r + 1,), float(10 * k + r)) for k in range(n)]))
    even = hvd.alltoall(torch.arange(float(n)) + 100 * r)
    assert torch.equal(even, torch.tensor([100.0 * k + r for k in range(n)]))
    ok("alltoall with and without splits")

    scattered = hvd.reducescatter(torch.arange(float(2 * n + 1)).repeat(2, 1).t().contiguous(), op=hvd.Sum)
    share = [2 + (1 if k < 1 else 0) for k in range(n)]  # 2n+1 rows: rank 0 takes the extra one
    start = sum(share[:r])
    expected = (torch.arange(float(2 * n + 1)).repeat(2, 1).t() * n)[start:start + share[r]]
    assert torch.equal(scattered, expected), (scattered, expected)
    ok("reducescatter")

    hvd.barrier()
    ok("barrier")

    x = torch.full((2,), float(r + 1), requires_grad=True)
    hvd.allreduce(x, op=hvd.Sum).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), float(n))), x.grad  # every rank's sum depends on x
    y = torch.full((r + 1,), 1.0, requires_grad=True)
    (hvd.allgather(y) * torch.arange(1.0, n * (n + 1) // 2 + 1)).sum().backward()
    offset = r * (r + 1) // 2
    assert torch.allclose(y.grad, torch.arange(1.0, n * (n + 1) // 2 + 1)[offset:offset + r + 1]), y.grad
    z = torch.ones(2, requires_grad=True)
    hvd.broadcast(z, root_rank=0).sum().backward()
    assert torch.equal(z.grad, torch.ones(2) if r == 0 else torch.zeros(2)), z.grad
    ok("gradients of allreduce, allgather and broadcast")

    expect_raises(NotImplementedError, lambda: hvd.allreduce(mine, op=hvd.Adasum), "Adasum")
    expect_raises(NotImplementedError, lambda: hvd.add_process_set([0]), "process sets")
    expect_raises(NotImplementedError, lambda: hvd.allreduce(mine, process_set=hvd.ProcessSet([0])),
                  "global process set")
    expect_raises(NotImplementedError, lambda: horovod.run(print), "ringmaster run --horovod")
    ok("what is not supported says so")

    # SyncBatchNorm over every rank's batch equals BatchNorm over the whole batch, gradients included.
    torch.manual_seed(3)
    whole = torch.randn(4 * n, 3, 5)
    mine_rows = whole[4 * r:4 * r + 4].clone().requires_grad_(True)
    synced = hvd.SyncBatchNorm(3)
    out = synced(mine_rows)
    weights = torch.arange(float(whole.numel())).view_as(whole)
    (out * weights[4 * r:4 * r + 4]).sum().backward()
    reference = torch.nn.BatchNorm1d(3)
    whole_rows = whole.clone().requires_grad_(True)
    expected = reference(whole_rows)
    (expected * weights).sum().backward()
    assert torch.allclose(out, expected[4 * r:4 * r + 4], atol=1e-5)
    assert torch.allclose(mine_rows.grad, whole_rows.grad[4 * r:4 * r + 4], atol=1e-4)
    assert torch.allclose(synced.running_mean, reference.running_mean, atol=1e-6)
    assert torch.allclose(synced.running_var, reference.running_var, atol=1e-5)
    ok("SyncBatchNorm on CPU")

    # The optimizer state of rank 0 (Adam, stepped there only) on every rank, tensors and scalars.
    torch.manual_seed(r)
    model = torch.nn.Linear(4, 2)
    adam = torch.optim.Adam(model.parameters(), lr=0.01 * (r + 1), betas=(0.8, 0.9))
    if r == 0:
        model(torch.ones(1, 4)).sum().backward()
        adam.step()
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(adam, root_rank=0)
    assert adam.param_groups[0]["lr"] == 0.01 and adam.param_groups[0]["betas"] == (0.8, 0.9)
    state = adam.state[model.weight]
    digest = hvd.allgather_object((float(state["exp_avg"].sum()), float(state["step"]),
                                   float(model.weight.sum())))
    assert len(set(digest)) == 1, digest
    expect_raises(ValueError, lambda: hvd.broadcast_optimizer_state(torch.optim.LBFGS(model.parameters()), 0),
                  "LBFGS")
    expect_raises(ValueError, lambda: hvd.broadcast_parameters(iter([]), 0), "invalid params")
    ok("broadcast_parameters and broadcast_optimizer_state")

    # elastic.run with fixed membership: the state is synced from rank 0, then the function runs once.
    state = hvd.elastic.TorchState(model=model, optimizer=adam, epoch=10 + r, batch=r)

    @hvd.elastic.run
    def train(state, more):
        return state.epoch + more

    assert train(state, 1) == 11 and state.batch == 0
    state.epoch += 1
    state.commit()
    state.epoch = 99
    state.restore()
    assert state.epoch == 11
    ok("elastic.run and TorchState")

    # join: rank r trains r+1 steps and joins; the others' gradients are averaged with its zeros meanwhile.
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 1, bias=False)
    sgd = hvd.DistributedOptimizer(torch.optim.SGD(net.parameters(), lr=1.0),
                                   named_parameters=net.named_parameters())
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    start = net.weight.detach().clone()
    for _ in range(r + 1):
        sgd.zero_grad()
        net(torch.ones(1, 3)).sum().backward()  # a gradient of ones
        sgd.step()
    last = hvd.join()
    assert last == n - 1, last
    # At step s (from 1) the n-s+1 ranks still training average their ones with the joined ranks' zeros.
    fell = sum((n - s + 1) / n for s in range(1, r + 2))
    assert torch.allclose(net.weight.detach(), start - fell), (net.weight, start, fell)
    hvd.broadcast_parameters(net.state_dict(), root_rank=last)
    weights = hvd.allgather_object(net.weight.detach().tolist())
    assert all(w == weights[0] for w in weights), weights
    ok("join")
    hvd.shutdown()
    assert not hvd.is_initialized()
    print(f"rank {r} all checks passed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
