#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""NIC-pool failover time: from the fault to the first packet through the
new NIC, measured on the wire.

  failover_probe.py send SRC DST PORT            UDP to DST:PORT from SRC,
                                                 one datagram per ms, forever
  failover_probe.py probe MODE NS DEV OLD NEW SRC PORT TRIALS HOLD

probe runs in the network namespace of the world outside the rack (x0),
where OLD and NEW are the bridge ports of the NIC the vNIC uses and of
the NIC it must move to. Each trial: wait for the sender's datagrams on
OLD, take the time, inject the fault in namespace NS in the same instant
(an ioctl, not a program started afterwards):

  stall   ethtool private flag "stall" on DEV (the NIC owner's rack0): a
          hung owner, no heartbeat, nothing forwarded
  link    DEV (the owner's exported NIC) down

then read NEW until a datagram of SRC arrives; its kernel receive time
(SO_TIMESTAMPNS, CLOCK_REALTIME like the fault's time) minus the fault's
time is the failover time. After HOLD seconds the fault is cleared and
the trial ends when the datagrams are back on OLD. One line per trial,
then "FAILOVER mode=.. trials=.. median_ms=.. worst_ms=.. best_ms=..
lost=.." (lost: trials with nothing on NEW within 5 s). Exit 1 if any.
"""
import ctypes
import fcntl
import os
import select
import socket
import statistics
import struct
import sys
import time

SIOCETHTOOL, SIOCGIFFLAGS, SIOCSIFFLAGS = 0x8946, 0x8913, 0x8914
ETHTOOL_GPFLAGS, ETHTOOL_SPFLAGS = 0x27, 0x28
PRIV_STALL, IFF_UP = 1, 1
PACKET_OUTGOING = 4
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # not in Python 3.11
CLONE_NEWNET = 0x40000000

libc = ctypes.CDLL(None, use_errno=True)


class Ifreq(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 16), ("data", ctypes.c_void_p),
                ("pad", ctypes.c_char * 16)]


def send(src, dst, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((src, 0))
    seq = 0
    while True:
        try:
            s.sendto(struct.pack("!Q", seq), (dst, int(port)))
        except OSError:
            pass        # no route or neighbour for a moment: keep going
        seq += 1
        time.sleep(0.001)


def capture(dev):
    # ETH_P_ALL: a tap sees a bridge port's frames before the bridge does.
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((dev, 0))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setblocking(False)
    return s


def ours(s, src, port):
    """Kernel receive times (ns) of SRC's datagrams to PORT read from s."""
    out = []
    while True:
        try:
            data, anc, _, addr = s.recvmsg(2048, 64)
        except BlockingIOError:
            return out
        if addr[2] == PACKET_OUTGOING or len(data) < 14 + 28 or \
           data[12:14] != b"\x08\x00":
            continue
        ip = data[14:]
        ihl = (ip[0] & 15) * 4
        if ip[9] != 17 or ip[12:16] != src or \
           struct.unpack_from("!H", ip, ihl + 2)[0] != port:
            continue
        ts = time.time_ns()
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                ts = sec * 10**9 + nsec
        out.append(ts)


def wait_on(s, src, port, secs, after=0):
    """First receive time >= after on s within secs, else None."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        select.select([s], [], [], 0.05)
        hit = [t for t in ours(s, src, port) if t >= after]
        if hit:
            return min(hit)
    return None


class Fault:
    def __init__(self, mode, ns, dev):
        fd = os.open("/run/netns/" + ns, os.O_RDONLY)
        if libc.setns(fd, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), "setns " + ns)
        os.close(fd)
        # Created in NS; the capture sockets stay in the namespace of x0.
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.mode, self.dev = mode, dev.encode()

    def ethtool(self, cmd, data=0):
        ev = (ctypes.c_uint32 * 2)(cmd, data)
        ifr = Ifreq(self.dev, ctypes.cast(ev, ctypes.c_void_p))
        if libc.ioctl(self.sock.fileno(), SIOCETHTOOL, ctypes.byref(ifr)):
            raise OSError(ctypes.get_errno(), "SIOCETHTOOL")
        return ev[1]

    def flags(self, req, val=0):
        r = fcntl.ioctl(self.sock, req, struct.pack("16sh22x", self.dev, val))
        return struct.unpack_from("h", r, 16)[0]

    def set(self, on):
        if self.mode == "stall":
            f = self.ethtool(ETHTOOL_GPFLAGS)
            self.ethtool(ETHTOOL_SPFLAGS, f | PRIV_STALL if on else f & ~PRIV_STALL)
        else:
            f = self.flags(SIOCGIFFLAGS)
            self.flags(SIOCSIFFLAGS, f & ~IFF_UP if on else f | IFF_UP)


def settled(s_old, s_new, src, port, secs):
    """True once a 200 ms window has datagrams on OLD and none on NEW."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        ours(s_old, src, port)
        ours(s_new, src, port)
        time.sleep(0.2)
        if ours(s_old, src, port) and not ours(s_new, src, port):
            return True
    return False


def probe(mode, ns, dev, old, new, src, port, trials, hold):
    src_b, port = socket.inet_aton(src), int(port)
    s_old, s_new = capture(old), capture(new)
    fault = Fault(mode, ns, dev)
    times, lost = [], 0
    for i in range(int(trials)):
        # The vNIC on OLD for sure: fresh datagrams there, none on NEW.
        if not settled(s_old, s_new, src_b, port, 15):
            print("trial %d: datagrams not through %s alone to begin with" % (i + 1, old))
            return 1
        t0 = time.time_ns()
        fault.set(True)
        t1 = wait_on(s_new, src_b, port, 5, t0)
        time.sleep(float(hold))
        fault.set(False)
        if t1 is None:
            lost += 1
            print("trial %d: nothing through %s within 5 s" % (i + 1, new))
        else:
            times.append((t1 - t0) / 1e6)
            print("trial %d: first datagram through %s %.1f ms after the fault"
                  % (i + 1, new, times[-1]), flush=True)
        # Back through OLD alone, then quiet for a while: a NIC that
        # changes again within a second counts as flapping.
        if not settled(s_old, s_new, src_b, port, 15):
            print("trial %d: datagrams not back through %s alone" % (i + 1, old))
            return 1
        time.sleep(float(hold))
    if times:
        print("FAILOVER mode=%s trials=%d median_ms=%.1f worst_ms=%.1f best_ms=%.1f lost=%d"
              % (mode, len(times) + lost, statistics.median(times), max(times),
                 min(times), lost))
    return 1 if lost or not times else 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "send":
        send(*sys.argv[2:])
    elif len(sys.argv) == 11 and sys.argv[1] == "probe":
        sys.exit(probe(*sys.argv[2:]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
