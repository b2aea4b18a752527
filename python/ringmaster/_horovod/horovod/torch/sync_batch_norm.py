# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.sync_batch_norm import SyncBatchNorm  # noqa: F401
