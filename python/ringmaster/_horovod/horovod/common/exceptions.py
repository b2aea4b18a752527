# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.basics import HorovodInternalError, HostsUpdatedInterrupt  # noqa: F401
