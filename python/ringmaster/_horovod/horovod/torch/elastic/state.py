# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.elastic import ObjectState, State, TorchState  # noqa: F401
