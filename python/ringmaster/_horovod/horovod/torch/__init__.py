# SPDX-License-Identifier: GPL-3.0-or-later
"""horovod.torch: Horovod's PyTorch API on torch.distributed (Ringmaster's Horovod-compatible layer)."""
from horovod.torch.compression import Compression  # noqa: F401
from horovod.torch.functions import (allgather_object, broadcast_object, broadcast_optimizer_state,  # noqa: F401
                                     broadcast_parameters)
from horovod.torch.mpi_ops import *  # noqa: F401,F403
from horovod.torch.mpi_ops import HorovodInternalError  # noqa: F401
from horovod.torch.optimizer import DistributedOptimizer  # noqa: F401
from horovod.torch.sync_batch_norm import SyncBatchNorm  # noqa: F401
from horovod.common.exceptions import HostsUpdatedInterrupt  # noqa: F401
from horovod.torch import elastic  # noqa: F401
