#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Guest-side helper: access the ivshmem (1af4:1110) BAR2 through sysfs mmap.

  ivshmem-rw.py write OFFSET TEXT       store TEXT + NUL at OFFSET
  ivshmem-rw.py read OFFSET             print the NUL-terminated text at OFFSET
  ivshmem-rw.py wait OFFSET PREFIX SEC  poll until the text at OFFSET starts
                                        with PREFIX, print it (exit 1 on timeout)
"""
import glob
import mmap
import os
import sys
import time


def bar2():
    for dev in sorted(glob.glob("/sys/bus/pci/devices/*")):
        ids = [open(f"{dev}/{f}").read().strip() for f in ("vendor", "device")]
        if ids == ["0x1af4", "0x1110"]:
            with open(f"{dev}/enable", "w") as f:  # make sure BARs decode
                f.write("1")
            fd = os.open(f"{dev}/resource2", os.O_RDWR | os.O_SYNC)
            return mmap.mmap(fd, os.fstat(fd).st_size)
    sys.exit("no ivshmem device (1af4:1110) found")


def text_at(mem, off):
    end = mem.find(b"\0", off, off + 4096)
    return mem[off:end if end >= 0 else off + 4096].decode(errors="replace")


def main(op, off, *args):
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
