# SPDX-License-Identifier: GPL-3.0-or-later
"""Ringmaster's Horovod-compatible layer: `import horovod.torch as hvd` on torch.distributed, without Horovod or MPI
(`ringmaster run --horovod`). It has Horovod 0.28's PyTorch API; see ringmaster/_hvd."""

import os as _os
import sys as _sys

__version__ = "0.28.1"
RINGMASTER_LAYER = True  # a script (or a test) can tell this layer from a real Horovod

if _os.environ.get("LOCAL_RANK", "0") == "0" and not _os.environ.get("RINGMASTER_HOROVOD_QUIET"):
    print(f"ringmaster: horovod is Ringmaster's Horovod-compatible layer on torch.distributed "
          f"({_os.path.dirname(_os.path.abspath(__file__))}); no Horovod is installed for {_sys.executable}",
          file=_sys.stderr, flush=True)


def run(*args, **kwargs):
    raise NotImplementedError("horovod.run: start the ranks with `ringmaster run --horovod -np N -- python3 "
                              "script.py` (Ringmaster's Horovod-compatible layer has no launcher of its own)")
