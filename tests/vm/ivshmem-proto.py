#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host-side check of an ivshmem doorbell server (tools/ivshmem-server/drack-ivshmem-server).

  ivshmem-proto.py SOCKET VECTORS SIZE

Plays several QEMU clients against a running server: the start-up messages
(version 0, lowest free id, shm fd of SIZE bytes), the eventfds of every
peer in both directions (a write on one end is read on the other), peer-gone
messages when a client closes or is SIGKILLed, a client that sends data,
and a client that never reads, which must be dropped without holding up
the others for long. Ids: the lowest free one that no connected client saw
leave (QEMU's device does not survive a departed id coming back). Exit 0
iff all is as the protocol says.
"""
import os
import signal
import socket
import struct
import subprocess
import sys
import time

SOCK, NVEC, SIZE = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
failed = 0


def check(cond, what, quiet=False):
    global failed
    if not cond or not quiet:
        print(("ok: " if cond else "FAIL: ") + what, flush=True)
    failed += not cond


class Client:
    def __init__(self, read_setup=True, quiet=False):
        self.quiet = quiet
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(SOCK)
        self.peers = {}  # id -> [eventfds]
        if read_setup:
            self.setup()

    def msg(self, timeout=3.0):
        """One int64 and its fd (or None); None on timeout."""
        self.s.settimeout(timeout)
        try:
            data, fds, _, _ = socket.recv_fds(self.s, 8, 1)
        except socket.timeout:
            return None
        if len(data) < 8:  # the stream may split a message; fds come first
            self.s.settimeout(timeout)
            data += self.s.recv(8 - len(data), socket.MSG_WAITALL)
        if len(data) != 8:
            raise EOFError("server closed the connection")
        return struct.unpack("<q", data)[0], (fds[0] if fds else None)

    def setup(self):
        q = self.quiet
        ver, fd = self.msg()
        check(ver == 0 and fd is None, f"version 0 (got {ver})", q)
        self.id, fd = self.msg()
        check(fd is None and 0 <= self.id <= 65535, f"id {self.id}", q)
        neg, self.shm = self.msg()
        check(neg == -1 and self.shm is not None and os.fstat(self.shm).st_size == SIZE,
              f"client {self.id}: shm fd of {SIZE} bytes", q)
        # existing peers' eventfds, then our own, each N times
        while self.id not in self.peers or len(self.peers[self.id]) < NVEC:
            m = self.msg()
            if m is None or m[1] is None:
                check(False, f"client {self.id}: eventfd message (got {m})")
                return
            self.peers.setdefault(m[0], []).append(m[1])
        check(all(len(f) == NVEC for f in self.peers.values()),
              f"client {self.id}: {NVEC} eventfds of peers {sorted(self.peers)}", q)

    def close(self):
        self.s.close()
        for fds in self.peers.values():
            for fd in fds:
                os.close(fd)
        if getattr(self, "shm", None) is not None:
            os.close(self.shm)

    def expect_join(self, pid=None):
        """NVEC eventfds of new peer pid (any id if None); returns its id."""
        fds = []
        for _ in range(NVEC):
            m = self.msg()
            if pid is None and m is not None:
                pid = m[0]
            if m is None or m[0] != pid or m[1] is None:
                check(False, f"client {self.id}: {NVEC} eventfds of new peer {pid} (got {m})")
                return pid
            fds.append(m[1])
        self.peers[pid] = fds
        check(True, f"client {self.id}: {NVEC} eventfds of new peer {pid}")
        return pid

    def expect_gone(self, pid, timeout=3.0):
        m = self.msg(timeout)
        check(m == (pid, None), f"client {self.id}: peer {pid} gone, no fd (got {m})")
        for fd in self.peers.pop(pid, []):
            os.close(fd)

    def expect_quiet(self):
        check(self.msg(0.2) is None, f"client {self.id}: no stray message")



def doorbell(a, b):
    """Each vector: a rings b's eventfd, b reads it from its own."""
    ok = True
    for v in range(NVEC):
        os.write(a.peers[b.id][v], struct.pack("=Q", v + 1))
        try:
            ok &= struct.unpack("=Q", os.read(b.peers[b.id][v], 8))[0] == v + 1
        except BlockingIOError:
            ok = False
    check(ok, f"doorbell {a.id} -> {b.id} on {NVEC} vector(s)")


c0 = Client()
check(c0.id == 0 and list(c0.peers) == [0], "first client: id 0, only its own eventfds")
c1 = Client()
check(c1.id == 1 and sorted(c1.peers) == [0, 1], "second client: id 1, knows peer 0")
c0.expect_join(1)
doorbell(c0, c1)
doorbell(c1, c0)
c2 = Client()
check(c2.id == 2 and sorted(c2.peers) == [0, 1, 2], "third client: id 2, knows 0 and 1")
c0.expect_join(2)
c1.expect_join(2)

# A client closing its socket: everybody else hears of it once.
c1.close()
c0.expect_gone(1)
c2.expect_gone(1)
c0.expect_quiet()

# Ids the others saw leave are not given out again while they run.
c3 = Client()
check(c3.id == 3 and sorted(c3.peers) == [0, 2, 3],
      f"next client gets id 3, not 1 which its peers saw leave (got {c3.id})")
c0.expect_join(3)
c2.expect_join(3)
doorbell(c3, c2)

# A client process killed with SIGKILL.
code = ("import socket,time;s=socket.socket(socket.AF_UNIX);s.connect(%r);"
        "print('up',flush=True);time.sleep(60)" % SOCK)
child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
child.stdout.readline()
kid = c0.expect_join()
check(kid == 4, f"the client to be killed has id 4 (got {kid})")
c2.expect_join(kid)
c3.expect_join(kid)
child.send_signal(signal.SIGKILL)
child.wait()
for c in (c0, c2, c3):
    c.expect_gone(kid)

# A client that sends data is not an ivshmem client: dropped.
c4 = Client()
for c in (c0, c2, c3):
    c.expect_join(c4.id)
c4.s.send(b"hello")
for c in (c0, c2, c3):
    c.expect_gone(c4.id)

# A client that never reads: its socket buffer fills up with the churn of
# others coming and going; it must be dropped, the others served on.
stuck = Client(read_setup=False)
sid = c0.expect_join()
c2.expect_join(sid)
c3.expect_join(sid)
start, worst, n, dropped, lost = time.monotonic(), 0.0, 0, set(), 0
while not dropped and time.monotonic() - start < 30:
    t = time.monotonic()
    x = Client(quiet=True)
    worst = max(worst, time.monotonic() - t)
    x.close()
    n += 1
    for c in (c0, c2, c3):  # x's eventfds, x gone, maybe 4 gone on the way
        while True:
            m = c.msg()
            if m is None:
                lost += 1
                break
            if m[1] is not None:
                os.close(m[1])
            elif m[0] == sid and c.id not in dropped:  # then x may get its id
                dropped.add(c.id)
            elif m[0] == x.id:
                break
check(not lost, "every join and leave of the churn reached every client")
check(dropped == {c0.id, c2.id, c3.id}, f"a client that does not read was dropped after {n} joins of others,"
      " all were told")
check(worst < 3.0, f"slowest connect while it was stuck: {worst:.2f}s")
for c in (c0, c2, c3):
    c.expect_quiet()
stuck.close()

# Still serving.
c5 = Client()
check(c5.id not in (0, 1, 2, 3, sid), f"a new client after all that gets a fresh id (got {c5.id})")
for c in (c0, c2, c3):
    c.expect_join(c5.id)
doorbell(c5, c0)
doorbell(c0, c5)
for c in (c0, c2, c3, c5):
    c.close()

# Once nobody who saw them leave is connected, ids start at 0 again.
time.sleep(0.3)
c6 = Client()
check(c6.id == 0, f"with every client gone, ids start at 0 again (got {c6.id})")
c6.close()
print(f"ivshmem-proto: {'FAIL' if failed else 'ok'} ({failed} failed)")
sys.exit(1 if failed else 0)
