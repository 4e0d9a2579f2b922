#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""UDP datagrams for net/xdp.sh, each one's content checkable.

  xdp_udp.py send DST PORT N [--sentinel PORT2]
      N datagrams to DST:PORT, then one to DST:PORT2 (it says "the N
      went before me": one peer's frames arrive in order)
  xdp_udp.py recv PORT N [--sentinel PORT2] [--ready FILE] [--timeout S]
      count well-formed datagrams on PORT until N arrived, the sentinel
      arrived, or S seconds passed; prints "good BAD"
  xdp_udp.py echo DST PORT N
      send N datagrams, each answered with the same bytes from DST:PORT
      before the next; prints how many were
"""
import argparse
import select
import socket
import sys
import time

SIZE = 300


def payload(i):
    head = b"xdp-%06d-" % i
    return head + bytes((i + k) & 0xff for k in range(SIZE - len(head)))


def index_of(data):
    try:
        i = int(data[4:10])
    except ValueError:
        return -1
    return i if data == payload(i) else -1


def send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(a.n):
        s.sendto(payload(i), (a.dst, a.port))
        time.sleep(0.005)  # never more than the receiver's buffer
    if a.sentinel:
        s.sendto(b"sentinel", (a.dst, a.sentinel))
    print(a.n)


def recv(a):
    socks = []
    for port in (a.port, a.sentinel):
        if port:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
            s.bind(("0.0.0.0", port))
            socks.append(s)
    if a.ready:
        open(a.ready, "w").close()
    seen, bad = set(), 0
    end = time.time() + a.timeout
    done = False
    while not done and len(seen) < a.n and time.time() < end:
        r, _, _ = select.select(socks, [], [], max(0, end - time.time()))
        for s in r:
            data = s.recv(65536)
            if s is not socks[0]:
                done = True
                continue
            i = index_of(data)
            if i < 0 or i in seen:
                bad += 1
            else:
                seen.add(i)
    # The sentinel came last: whatever came before it is queued by now.
    socks[0].setblocking(False)
    while done:
        try:
            data = socks[0].recv(65536)
        except BlockingIOError:
            break
        i = index_of(data)
        if i < 0 or i in seen:
            bad += 1
        else:
            seen.add(i)
    print(len(seen), bad)


def echo(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    ok = 0
    for i in range(a.n):
        s.sendto(payload(i), (a.dst, a.port))
        try:
            data, src = s.recvfrom(65536)
        except socket.timeout:
            print("no echo of datagram %d" % i, file=sys.stderr)
            continue
        if src != (a.dst, a.port) or data != payload(i):
            print("datagram %d came back from %s changed" % (i, src),
                  file=sys.stderr)
            continue
        ok += 1
    print(ok)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("send")
    c.add_argument("dst")
    c.add_argument("port", type=int)
    c.add_argument("n", type=int)
    c.add_argument("--sentinel", type=int, default=0)
    c = sub.add_parser("recv")
    c.add_argument("port", type=int)
    c.add_argument("n", type=int)
    c.add_argument("--sentinel", type=int, default=0)
    c.add_argument("--ready")
    c.add_argument("--timeout", type=float, default=30)
    c = sub.add_parser("echo")
    c.add_argument("dst")
    c.add_argument("port", type=int)
    c.add_argument("n", type=int)
    a = p.parse_args()
    {"send": send, "recv": recv, "echo": echo}[a.cmd](a)


if __name__ == "__main__":
    main()
