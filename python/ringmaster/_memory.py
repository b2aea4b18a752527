# SPDX-License-Identifier: GPL-3.0-or-later
"""A rank's memory, read once per step as ringmaster-worker does (worker/process_memory.cpp)."""

from __future__ import annotations

import ctypes
import os
from typing import Callable, Optional, Tuple

_PAGE = os.sysconf("SC_PAGE_SIZE")
HOST_TOTAL_BYTES = os.sysconf("SC_PHYS_PAGES") * _PAGE


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _mallinfo2() -> Optional[Callable[[], _MallInfo2]]:
    try:
        function = ctypes.CDLL(None).mallinfo2  # glibc 2.33 and later
    except (OSError, AttributeError):
        return None
    function.restype = _MallInfo2
    function.argtypes = []
    return function


_MALLINFO2 = _mallinfo2()


_statm: Tuple[int, int] = (-1, -1)  # (pid, descriptor): kept open, a read costs a few microseconds, an open tens


def rss_bytes() -> int:
    global _statm
    try:
        pid, fd = _statm
        if pid != os.getpid():  # first call, or a forked child: /proc/self was the parent when it was opened
            fd = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
            _statm = (os.getpid(), fd)
        return int(os.pread(fd, 256, 0).split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def heap_bytes() -> int:
    """Heap in use from the C allocator: small blocks plus mmapped ones."""
    if _MALLINFO2 is None:
        return 0
    info = _MALLINFO2()
    return info.uordblks + info.hblkhd


# (used, total) bytes of the accelerator, or None; provided by ringmaster.torch when CUDA is in use.
DeviceMemory = Callable[[], Optional[Tuple[int, int]]]
