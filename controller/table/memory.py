"""Memory the service freed given back to the system (glibc's malloc), so its resident size
comes back down after a burst of phones, requests or camera frames.

Measured under `railtable bench load` (tracemalloc and glibc's `mallinfo2` in the service, before
the clients came and after they left): Python's own heap grew by 8 MB (the game played on), the
process's resident memory by 50 MB. The rest was memory freed but kept by malloc: a freed camera
frame (2.7 MB) raises glibc's mmap threshold to its size, after which frames come from the heaps
of the threads that draw them, and the event loop's and workers' heaps keep what a burst of
connections freed. Here frames are always mapped (and unmapped when freed), and the free parts
of every heap are handed back now and then (`malloc_trim`). Elsewhere than glibc: nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys
from typing import Any

log = logging.getLogger("railtable")

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 512 * 1024  # blocks this big or bigger are mapped on their own, never heaped
TRIM_EVERY_S = 30.0  # the owner's tick hands free memory back this often


def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018 (glibc only: musl has none)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def map_big_blocks() -> bool:
    """Blocks from MMAP_THRESHOLD up mapped on their own (a fixed threshold: glibc otherwise
    raises it to the largest block freed, and camera frames then stay in the heaps)."""
    return _LIBC is not None and bool(_LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def give_back() -> bool:
    """Hand the free pages of every malloc heap back to the system; False: not glibc."""
    if _LIBC is None:
        return False
    _LIBC.malloc_trim(0)  # ctypes lets go of the GIL meanwhile
    return True
