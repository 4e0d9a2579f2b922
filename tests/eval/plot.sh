#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# plot.sh OUT: the evaluation's PNG plots (gnuplot) from the data files
# tests/eval/report.py wrote into OUT:
#   theta-{redis-p99,redis-avg,ring,ps}.png   ToR vs drack over theta
#                                             (median, min-max bars)
#   util.png                                  rack 0's two NICs during one
#                                             ring all-reduce run, per mode
#   cxl.png                                   drack's redis and tcp-rr
#                                             latency over pool_delay_ns
set -uo pipefail
out=$1
cd "$out" || exit 2
rate=$(sed -n 's/.*EVAL_C=\([^ ]*\).*/\1/p' meta.txt)
commit=$(sed -n 's/^commit=//p' meta.txt)
rc=0

theta() {
	local f=$1 title=$2 ylabel=$3
	[[ -s $f.dat ]] || return 0
	gnuplot <<EOF2 || rc=1
set terminal pngcairo size 760,420
set output "$f.png"
set title "$title (C = $rate, commit $commit)"
set xlabel "theta (NIC rate = theta x C)"
set ylabel "$ylabel"
set key top right
set grid
set xrange [0:1.1]
set yrange [0:*]
plot "$f.dat" using 1:2:3:4 with yerrorlines title "ToR", \
     "$f.dat" using 1:5:6:7 with yerrorlines title "drack"
EOF2
}
theta theta-redis-p99 "Redis hot-key incast, p99 latency" "p99 latency (us)"
theta theta-redis-avg "Redis hot-key incast, average latency" "average latency (us)"
theta theta-ring "Gloo ring all-reduce, time per iteration" "communication time (ms)"
theta theta-ps "Parameter server exchange, time per iteration" "communication time (ms)"

# util-MODE-HV.txt: "EPOCH TX_BYTES" every 100 ms -> "SECONDS MBIT/S"
for f in util-*-H?.txt; do
	[[ -e $f ]] || continue
	awk 'NR == 1 { t0 = $1 } NR > 1 && $1 > pt { printf "%.2f %.3f\n", $1 - t0, ($2 - pb) * 8 / ($1 - pt) / 1e6 } { pt = $1; pb = $2 }' \
		"$f" >"${f%.txt}.dat"
done
if compgen -G 'util-*-H0.dat' >/dev/null; then
	plots=()
	for m in tor drack; do
		for v in 0 1; do
			[[ -s util-$m-H$v.dat ]] && plots+=("\"util-$m-H$v.dat\" using 1:2 with lines title \"$m: NIC $v (H$v)\"")
		done
	done
	gnuplot <<EOF2 || rc=1
set terminal pngcairo size 720,400
set output "util.png"
set title "Rack 0's NICs during one ring all-reduce run (100 ms samples)"
set xlabel "time (s)"
set ylabel "NIC transmit (Mbit/s)"
set grid
set yrange [0:*]
plot $(IFS=,; echo "${plots[*]}")
EOF2
fi

if [[ $(grep -vc '^#' cxl.dat 2>/dev/null) -gt 0 ]]; then
	gnuplot <<EOF2 || rc=1
set terminal pngcairo size 760,420
set output "cxl.png"
set title "drack: CXL latency emulation (pool_delay_ns), commit $commit"
set xlabel "pool_delay_ns (per pool access batch)"
set ylabel "latency (us)"
set logscale y
set grid
plot "cxl.dat" using 1:2 with linespoints title "redis p99", \
     "cxl.dat" using 1:3 with linespoints title "redis average", \
     "cxl.dat" using 1:4 with linespoints title "tcp-rr p50 (rack0)", \
     "cxl.dat" using 1:5 with linespoints title "tcp-rr p99 (rack0)"
EOF2
fi
ls ./*.png 2>/dev/null
exit $rc
