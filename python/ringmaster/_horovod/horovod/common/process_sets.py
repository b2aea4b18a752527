# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.basics import (ProcessSet, add_process_set, global_process_set,  # noqa: F401
                                    remove_process_set)
