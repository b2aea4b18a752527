# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.functions import (allgather_object, broadcast_object, broadcast_optimizer_state,  # noqa: F401
                                       broadcast_parameters)
