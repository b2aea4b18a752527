# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.elastic import ElasticSampler  # noqa: F401
