#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""stream.py: one TCP stream whose bytes are checked end to end.

  stream.py send HOST PORT BYTES   send BYTES random bytes, print "BYTES SHA256"
  stream.py recv PORT [--rcvbuf N] [--hold FILE] [--ready FILE] [--splice]
        accept one connection and read it to the end, print "BYTES SHA256".
        --rcvbuf: SO_RCVBUF before listen (the window a reader that does not
        read yet may be sent); --hold: read nothing until FILE exists (an
        application that does not read); --ready: touch FILE once listening;
        --splice: splice(2) the socket into a pipe and read the pipe.
"""
import argparse
import hashlib
import os
import socket
import sys
import time


def send(args):
    h = hashlib.sha256()
    left = args.bytes
    with socket.create_connection((args.host, args.port), timeout=60) as s:
        while left:
            chunk = os.urandom(min(left, 1 << 16))
            s.sendall(chunk)
            h.update(chunk)
            left -= len(chunk)
        # A graceful close: the kernel still delivers what is queued.
    print(args.bytes, h.hexdigest())


def sock_read(s, h):
    n = 0
    while True:
        b = s.recv(1 << 16)
        if not b:
            return n
        h.update(b)
        n += len(b)


# The socket's pages go into a pipe as they are (skb_splice_bits()), and
# come out through copy_page_to_iter() on the pipe's read.
def splice_read(s, h):
    r, w = os.pipe()
    n = 0
    try:
        while True:
            k = os.splice(s.fileno(), w, 1 << 16)
            if not k:
                return n
            while k:
                b = os.read(r, k)
                if not b:
                    raise OSError("the pipe gave back less than was spliced")
                h.update(b)
                n += len(b)
                k -= len(b)
    finally:
        os.close(r)
        os.close(w)


def recv(args):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.rcvbuf:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    ls.bind(("0.0.0.0", args.port))
    ls.listen(1)
    if args.ready:
        open(args.ready, "w").close()
    s, _ = ls.accept()
    while args.hold and not os.path.exists(args.hold):
        time.sleep(0.05)
    h = hashlib.sha256()
    n = splice_read(s, h) if args.splice else sock_read(s, h)
    s.close()
    print(n, h.hexdigest())
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("host")
    s.add_argument("port", type=int)
    s.add_argument("bytes", type=int)
    r = sub.add_parser("recv")
    r.add_argument("port", type=int)
    r.add_argument("--rcvbuf", type=int, default=0)
    r.add_argument("--hold")
    r.add_argument("--ready")
    r.add_argument("--splice", action="store_true")
    args = p.parse_args()
    send(args) if args.cmd == "send" else recv(args)


if __name__ == "__main__":
    main()
