#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py OUT: the evaluation's tables from OUT/raw.txt (tests/eval/eval.sh).

Prints the summary table (workload, ToR, drack, change) and the detailed
tables (median and min-max over the runs), writes OUT/medians.txt and the
gnuplot data files OUT/theta-*.dat, OUT/cxl.dat, OUT/util-*.dat. Lower is
better for every figure but throughput (rps).
"""
import statistics
import sys
from collections import defaultdict

out = sys.argv[1]
rows = []
for line in open(out + "/raw.txt"):
    kv = dict(f.split("=", 1) for f in line.split() if "=" in f)
    if kv:
        rows.append(kv)


def runs(**want):
    return [r for r in rows if all(r.get(k) == str(v) for k, v in want.items())]


def redis_rep(rs):
    """One redis run (two clients): rps summed, p50/p99 the worse client,
    avg weighted by requests."""
    by = defaultdict(list)
    for r in rs:
        by[r["rep"]].append(r)
    res = {}
    for rep, cs in by.items():
        n = sum(int(c["requests"]) for c in cs)
        res[rep] = dict(rps=sum(float(c["rps"]) for c in cs),
                        p50=max(float(c["p50_us"]) for c in cs),
                        p99=max(float(c["p99_us"]) for c in cs),
                        avg=sum(float(c["avg_us"]) * int(c["requests"]) for c in cs) / n if n else float("nan"))
    return res


def coll_rep(rs):
    """One collective run: the slowest rank's median iteration (the
    iteration is over when every rank has the result)."""
    by = defaultdict(list)
    for r in rs:
        by[r["rep"]].append(float(r["median_ms"]))
    return [max(v) for v in by.values()]


def stat(vals):
    vals = [v for v in vals if v == v]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals), len(vals)


def fmt(s, f="%.1f"):
    return "-" if not s else (f + " (" + f + "-" + f + ", n=%d)") % s


thetas = sorted({float(r["theta"]) for r in rows if r["w"] in ("redis", "ring", "ps")})
metrics = []  # (workload, unit, theta, tor stat, drack stat, lower_is_better)
for th in thetas:
    t = "%g" % th
    red = {m: redis_rep(runs(w="redis", mode=m, theta=t)) for m in ("tor", "drack")}
    for key, unit, lower in (("p99", "us", True), ("avg", "us", True), ("p50", "us", True), ("rps", "req/s", False)):
        metrics.append(("redis %s" % key, unit, th, stat([x[key] for x in red["tor"].values()]),
                        stat([x[key] for x in red["drack"].values()]), lower))
    for algo in ("ring", "ps"):
        metrics.append(("%s all-reduce" % algo if algo == "ring" else "ps exchange", "ms", th,
                        stat(coll_rep(runs(w=algo, mode="tor", theta=t))),
                        stat(coll_rep(runs(w=algo, mode="drack", theta=t))), True))

rr = {}
for mode, byref in (("tor", "on"), ("drack", "on"), ("drack", "off")):
    rs = runs(w="rr", mode=mode, byref=byref, delay=0)
    rr[(mode, byref)] = {k: stat([float(r[k + "_us"]) for r in rs]) for k in ("p50", "p99", "avg")}


def change(tor, dr, lower):
    if not tor or not dr or not tor[0]:
        return "-"
    c = (dr[0] - tor[0]) / tor[0] * 100
    return "%+.1f%%%s" % (c, "" if (c < 0) == lower or c == 0 else " (worse)")


print()
print("# summary: medians over the runs; change = drack vs ToR (negative = lower)")
print("%-22s %6s %10s %10s %16s" % ("workload", "theta", "ToR", "drack", "change"))
for w, unit, th, tor, dr, lower in metrics:
    print("%-22s %6g %10s %10s %16s" % (w + " " + unit, th, "%.1f" % tor[0] if tor else "-",
                                        "%.1f" % dr[0] if dr else "-", change(tor, dr, lower)))
for k in ("p50", "avg", "p99"):
    tor, on, off = rr[("tor", "on")][k], rr[("drack", "on")][k], rr[("drack", "off")][k]
    print("%-22s %6s %10s %10s %16s" % ("rr %s us (intra)" % k, "-", "%.1f" % tor[0] if tor else "-",
                                        "%.1f" % on[0] if on else "-", change(tor, on, True)))
    print("%-22s %6s %10s %10s %16s" % ("  by value->by ref", "-", "%.1f" % off[0] if off else "-",
                                        "%.1f" % on[0] if on else "-", change(off, on, True)))

with open(out + "/medians.txt", "w") as f:
    f.write("# workload unit theta | ToR median (min-max, n) | drack median (min-max, n)\n")
    for w, unit, th, tor, dr, lower in metrics:
        f.write("%s %s %g | %s | %s\n" % (w.replace(" ", "_"), unit, th, fmt(tor), fmt(dr)))
    for (mode, byref), st in rr.items():
        for k, s in st.items():
            f.write("rr_%s us %s byref=%s | %s\n" % (k, mode, byref, fmt(s)))
    cx = defaultdict(dict)
    for d in sorted({int(r["delay"]) for r in rows if r["w"] in ("redis_cxl", "rr")}):
        red = redis_rep(runs(w="redis_cxl", mode="drack", delay=d))
        cx[d]["redis_p99"] = stat([x["p99"] for x in red.values()])
        cx[d]["redis_avg"] = stat([x["avg"] for x in red.values()])
        cx[d]["redis_rps"] = stat([x["rps"] for x in red.values()])
        rs = runs(w="rr", mode="drack", byref="on", delay=d)
        cx[d]["rr_p50"] = stat([float(r["p50_us"]) for r in rs])
        cx[d]["rr_p99"] = stat([float(r["p99_us"]) for r in rs])
        for k, s in cx[d].items():
            f.write("cxl_%s %s delay=%dns | %s\n" % (k, "req/s" if k.endswith("rps") else "us", d, fmt(s)))
print()
print("# details (median (min-max, n runs)): " + out + "/medians.txt")
for line in open(out + "/medians.txt"):
    print("  " + line.rstrip())

# gnuplot data: theta tor_med tor_min tor_max drack_med drack_min drack_max
for key, name in (("redis p99", "redis-p99"), ("redis avg", "redis-avg"), ("redis rps", "redis-rps"),
                  ("ring all-reduce", "ring"), ("ps exchange", "ps")):
    with open(out + "/theta-%s.dat" % name, "w") as f:
        for w, unit, th, tor, dr, lower in metrics:
            if w == key and tor and dr:
                f.write("%g %g %g %g %g %g %g\n" % (th, tor[0], tor[1], tor[2], dr[0], dr[1], dr[2]))
with open(out + "/cxl.dat", "w") as f:
    f.write("# delay_ns redis_p99 redis_avg rr_p50 rr_p99 (medians, us)\n")
    for d, st in sorted(cx.items()):
        f.write("%d %s\n" % (d, " ".join("%g" % st[k][0] if st[k] else "nan"
                                          for k in ("redis_p99", "redis_avg", "rr_p50", "rr_p99"))))
