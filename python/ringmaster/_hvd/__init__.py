# SPDX-License-Identifier: GPL-3.0-or-later
"""Ringmaster's Horovod-compatible layer on torch.distributed: what `horovod.torch` does for a Horovod script run
with `ringmaster run --horovod`, written over init_process_group, all_reduce, broadcast and all_gather.

The modules a script imports (`horovod`, `horovod.torch` ...) live in ringmaster/_horovod and only name what is
here; the bootstrap makes them importable for a rank started with --horovod, and only where no real Horovod is
installed. The parts:

  basics     init and shutdown, ranks and sizes, the reduction ops, process sets, what was built
  ops        the collectives and their handles (allreduce, allgather, broadcast, alltoall, reducescatter ...)
  optimizer  DistributedOptimizer: gradients fused into a fixed plan of buckets that every rank launches in one
             order (torch.distributed pairs collectives by the order they are issued; Horovod negotiates)
  functions  broadcast_parameters, broadcast_optimizer_state, broadcast_object, allgather_object
  stall      the stall inspector: names the ranks that have not called a collective others wait in
  sync_batch_norm, elastic, compression
"""
