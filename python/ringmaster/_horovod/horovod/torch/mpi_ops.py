# SPDX-License-Identifier: GPL-3.0-or-later
"""horovod.torch.mpi_ops: the collectives and the job's facts."""
from ringmaster._hvd.basics import (Adasum, Average, HorovodInternalError, Max, Min, Product,  # noqa: F401
                                    ProcessSet, Sum, add_process_set, ccl_built, cross_rank, cross_size,
                                    cuda_built, ddl_built, global_process_set, gloo_built, gloo_enabled, init,
                                    is_homogeneous, is_initialized, local_rank, local_size, mpi_built, mpi_enabled,
                                    mpi_threads_supported, nccl_built, rank, remove_process_set, rocm_built,
                                    shutdown, size, start_timeline, stop_timeline)
from ringmaster._hvd.ops import (allgather, allgather_async, allreduce, allreduce_, allreduce_async,  # noqa: F401
                                 allreduce_async_, alltoall, alltoall_async, barrier, broadcast, broadcast_,
                                 broadcast_async, broadcast_async_, grouped_allgather, grouped_allreduce,
                                 grouped_allreduce_, grouped_allreduce_async, grouped_allreduce_async_, join, poll,
                                 reducescatter, reducescatter_async, sparse_allreduce_async, synchronize)
