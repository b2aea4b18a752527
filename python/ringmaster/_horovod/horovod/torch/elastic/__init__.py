# SPDX-License-Identifier: GPL-3.0-or-later
"""horovod.torch.elastic with fixed membership (see ringmaster/_hvd/elastic.py)."""
from ringmaster._hvd.elastic import ElasticSampler, ObjectState, State, TorchState, run  # noqa: F401
