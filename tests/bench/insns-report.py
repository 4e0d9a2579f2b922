#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""insns-report.py [--top N] KALLSYMS WINDOWS COUNTS: tests/bench/insns.sh's
report. COUNTS is the insn-prof plugin's output (one window per load,
"VADDR INSNS EXECS" per kernel block), WINDOWS the guest's names for the
windows ("NAME DIVISOR UNIT"), KALLSYMS the guest's /proc/kallsyms. Prints
guest instructions per unit of each load, rack0 against veth, and the
kernel functions whose instructions differ most.

A vCPU spinning on a lock that the other vCPU holds executes
instructions too, and how many depends on the host's scheduling (a lock
holder's vCPU thread preempted on the host): those in the lock's slow
path are counted apart ("spin") and left out of the totals."""
import argparse
import bisect
import collections
import sys

SPIN = ("native_queued_spin_lock_slowpath", "__pv_queued_spin_lock_slowpath")

# drack.ko's functions by stage of a frame (the first pattern that fits).
STAGES = (
    ("return", ("drack_rxref_reclaim", "drack_rxref_check", "drack_rxref_holding",
                "drack_rx_drain_returns", "drack_peer_take_returns", "drack_buf_return",
                "drack_buf_push", "drack_rx_returns_due", "drack_rx_want_returns",
                "drack_peer_judge", "drack_rx_held_timer")),
    ("transmit", ("drack_xmit", "drack_tx_", "drack_buf_get", "drack_buf_section",
                  "drack_alloc_low", "drack_dev_request_sections")),
    ("doorbell", ("drack_ram_kick", "drack_pool_kick", "drack_client_kick",
                  "drack_dev_kick", "drack_queues_kick", "drack_nic_kick", "drack_peer_flush")),
    ("receive", ("drack_napi_poll", "drack_rx", "drack_rxref", "drack_skb_from_buf",
                 "drack_peer_ref_valid", "drack_peer_alive", "drack_xdp")),
)


def stage(func):
    for name, prefixes in STAGES:
        if func.startswith(prefixes):
            return name
    return "other"


def load_symbols(path):
    syms = []
    for line in open(path):
        f = line.split()
        if len(f) < 3 or f[1] not in "tTwW":
            continue
        name = f[2] + (" " + f[3] if len(f) > 3 else "")
        syms.append((int(f[0], 16), name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def load_windows(path):
    wins, cur = [], None
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "window":
            cur = {"funcs": collections.Counter(), "kernel": 0, "user": 0}
            wins.append(cur)
        elif f[0] == "user":
            cur["user"] = int(f[1])
        else:
            cur["blocks"] = cur.get("blocks", [])
            cur["blocks"].append((int(f[0], 16), int(f[1]) * int(f[2])))
    return wins


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("kallsyms")
    ap.add_argument("windows")
    ap.add_argument("counts")
    a = ap.parse_args()
    addrs, names = load_symbols(a.kallsyms)
    labels = [l.split(None, 2) for l in open(a.windows) if l.strip()]
    wins = load_windows(a.counts)
    if len(wins) != len(labels):
        sys.exit(f"insns-report: {len(wins)} windows counted, {len(labels)} named")
    for (name, div, unit), w in zip(labels, wins):
        div = float(div)
        for vaddr, n in w.get("blocks", []):
            i = bisect.bisect_right(addrs, vaddr) - 1
            f = names[i] if i >= 0 else "?"
            if f in SPIN:
                w["spin"] = w.get("spin", 0) + n
                continue
            w["funcs"][f] += n
            w["kernel"] += n
        w.update(name=name, div=div, unit=unit.strip())
    # Each path's median run (by total instructions) stands for it.
    runs = collections.defaultdict(list)
    for w in wins:
        runs[w["name"]].append(w)
    by, order = {}, []
    for name, ws in runs.items():
        ws.sort(key=lambda w: (w["kernel"] + w["user"]) / w["div"])
        by[name] = ws[(len(ws) - 1) // 2]
        by[name]["runs"] = ",".join("%.0f" % ((w["kernel"] + w["user"]) / w["div"]) for w in ws)
        order.append(by[name])
    wins = order

    print("Guest instructions (QEMU TCG, insn-prof plugin), per unit of load,"
          " each path's median run:")
    print("%-18s %-11s %12s %12s %12s %12s %12s" %
          ("load", "unit", "kernel", "user", "total", "drack.ko", "(spin)"))
    for w in wins:
        drack = sum(n for f, n in w["funcs"].items() if f.endswith("[drack]"))
        d = w["div"]
        print("%-18s %-11s %12.0f %12.0f %12.0f %12.0f %12.0f" %
              (w["name"], w["unit"], w["kernel"] / d, w["user"] / d,
               (w["kernel"] + w["user"]) / d, drack / d,
               w.get("spin", 0) / d))
        print("BENCH metric=insns_%s path=%s value=%.0f unit=insns/%s runs=%s" %
              (w["name"].split("-", 1)[1], w["name"].split("-", 1)[0],
               (w["kernel"] + w["user"]) / d, w["unit"].replace(" ", "_"), w["runs"]))

    print("\ndrack.ko's instructions by stage, per unit of load:")
    print("%-18s" % "load" + "".join("%10s" % n for n, _ in STAGES) + "%10s" % "other")
    for w in wins:
        if not w["name"].startswith("rack0"):
            continue
        st = collections.Counter()
        for f, n in w["funcs"].items():
            if f.endswith(" [drack]"):
                st[stage(f[:-len(" [drack]")])] += n
        print("%-18s" % w["name"] + "".join("%10.0f" % (st[n] / w["div"])
                                           for n in [n for n, _ in STAGES] + ["other"]))

    for load in ("pingpong", "stream"):
        r, v = by.get("rack0-" + load), by.get("veth-" + load)
        if not r or not v:
            continue
        rt = (r["kernel"] + r["user"]) / r["div"]
        vt = (v["kernel"] + v["user"]) / v["div"]
        print("\n%s: rack0 %.0f, veth %.0f instructions per %s: %.2fx" %
              (load, rt, vt, r["unit"], rt / vt))
        diff = collections.Counter()
        for f in set(r["funcs"]) | set(v["funcs"]):
            diff[f] = r["funcs"][f] / r["div"] - v["funcs"][f] / v["div"]
        print("  functions with the largest difference (rack0 - veth, per %s):" % r["unit"])
        top = sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:a.top]
        for f, d in top:
            print("  %+10.0f  %-44s rack0 %9.0f  veth %9.0f" %
                  (d, f, r["funcs"][f] / r["div"], v["funcs"][f] / v["div"]))


if __name__ == "__main__":
    main()
