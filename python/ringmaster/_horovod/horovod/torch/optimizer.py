# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.optimizer import DistributedOptimizer, _DistributedOptimizer  # noqa: F401
