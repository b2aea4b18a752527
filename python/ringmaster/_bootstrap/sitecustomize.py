# SPDX-License-Identifier: GPL-3.0-or-later
"""Instruments an unmodified PyTorch program that Ringmaster's agent starts with RINGMASTER_INSTRUMENT=1, or
that records to files in RINGMASTER_RECORD_DIR.

The agent puts this folder first on PYTHONPATH, so Python imports this module at start-up in place of any other
sitecustomize; that one is then found further along sys.path and run as well, so the program's environment stays
what it was. Nothing heavy happens here: once the program imports torch, ringmaster.torch.install() wraps its
training entry points, and the telemetry starts when the program initialises its process group.

With RINGMASTER_HOROVOD=1 (`ringmaster run --horovod`), `import horovod` finds Ringmaster's Horovod-compatible
layer (ringmaster/_horovod), through a finder put last on sys.meta_path: an installed Horovod is found first and
runs, and the rank says which one it is.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _chain_next_sitecustomize() -> None:
    search = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", search)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # as site.py treats a failing sitecustomize: say so and go on
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(e).__name__}: {e}", file=sys.stderr)


class _AfterTorchImport(importlib.abc.MetaPathFinder):
    """Runs ringmaster.torch.install() right after `torch` has been imported, whoever imports it."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _install()

        spec.loader.exec_module = exec_module
        return spec


class _HorovodLayer(importlib.abc.MetaPathFinder):
    """Finds `horovod` in Ringmaster's layer, asked only once every other finder has found none."""

    def __init__(self, folder: str) -> None:
        self._folder = folder

    def find_spec(self, name, path=None, target=None):
        if name != "horovod":
            return None
        return importlib.machinery.PathFinder.find_spec(name, [self._folder])


def _offer_horovod_layer() -> None:
    installed = importlib.machinery.PathFinder.find_spec("horovod")
    if installed is not None:
        if os.environ.get("LOCAL_RANK", "0") == "0":
            where = installed.submodule_search_locations or [installed.origin]
            print(f"ringmaster: --horovod: the Horovod installed at {list(where)[0]} runs, not Ringmaster's "
                  f"Horovod-compatible layer; uninstall it from {sys.executable} to use the layer", file=sys.stderr,
                  flush=True)
        return
    sys.meta_path.append(_HorovodLayer(os.path.join(os.path.dirname(_HERE), "_horovod")))


def _install() -> None:
    try:
        import ringmaster.torch

        ringmaster.torch.install()
    except Exception as e:  # never stop the program: it trains on, unobserved
        print(f"ringmaster: the program runs without instrumentation ({type(e).__name__}: {e})", file=sys.stderr)


# Started by an agent with instrumentation, or recording to files where no agent runs (`ringmaster python-path`).
if os.environ.get("RINGMASTER_INSTRUMENT") == "1" or os.environ.get("RINGMASTER_RECORD_DIR", "").strip():
    if "torch" in sys.modules:
        _install()
    else:
        sys.meta_path.insert(0, _AfterTorchImport())

if os.environ.get("RINGMASTER_HOROVOD") == "1":
    _offer_horovod_layer()

_chain_next_sitecustomize()
