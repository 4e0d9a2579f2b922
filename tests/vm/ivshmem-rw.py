#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Guest-side helper: access the ivshmem (1af4:1110) BAR2 through sysfs mmap.

  ivshmem-rw.py write OFFSET TEXT       store TEXT + NUL at OFFSET
  ivshmem-rw.py read OFFSET             print the NUL-terminated text at OFFSET
  ivshmem-rw.py wait OFFSET PREFIX SEC  poll until the text at OFFSET starts
                                        with PREFIX, print it (exit 1 on timeout)
  ivshmem-rw.py id                      print IVPosition (BAR0 offset 8): the
                                        peer id an ivshmem-doorbell got from
                                        its server
"""
import ctypes
import glob
import mmap
import os
import sys
import time


def device():
    for dev in sorted(glob.glob("/sys/bus/pci/devices/*")):
        ids = [open(f"{dev}/{f}").read().strip() for f in ("vendor", "device")]
        if ids == ["0x1af4", "0x1110"]:
            with open(f"{dev}/enable", "w") as f:  # make sure BARs decode
                f.write("1")
            return dev
    sys.exit("no ivshmem device (1af4:1110) found")


def bar2():
    fd = os.open(f"{device()}/resource2", os.O_RDWR | os.O_SYNC)
    return mmap.mmap(fd, os.fstat(fd).st_size)


def ivposition():
    """BAR0 is 256 bytes, maybe not page-aligned: map its page with libc."""
    dev = device()
    start = int(open(f"{dev}/resource").readline().split()[0], 16)
    fd = os.open(f"{dev}/resource0", os.O_RDWR | os.O_SYNC)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long)
    page = mmap.PAGESIZE
    addr = libc.mmap(None, page, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        sys.exit(f"mmap {dev}/resource0: {os.strerror(ctypes.get_errno())}")
    return ctypes.c_uint32.from_address(addr + start % page + 8).value  # one 32-bit load


def text_at(mem, off):
    end = mem.find(b"\0", off, off + 4096)
    return mem[off:end if end >= 0 else off + 4096].decode(errors="replace")


def main(op, off="0", *args):
    if op == "id":
        print(ivposition())
        return
    mem, off = bar2(), int(off, 0)
    if op == "write":
        data = args[0].encode() + b"\0"
        mem[off:off + len(data)] = data
    elif op == "read":
        print(text_at(mem, off))
    elif op == "wait":
        deadline = time.monotonic() + float(args[1])
        while not text_at(mem, off).startswith(args[0]):
            if time.monotonic() > deadline:
                sys.exit(f"timeout waiting for {args[0]!r} at {off:#x}")
            time.sleep(0.05)
        print(text_at(mem, off))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(*sys.argv[1:])
