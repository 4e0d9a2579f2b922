#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# apps: unmodified socket applications over rack0.
#
#   h0: redis-server 198.18.0.1:6390, python3 http.server :8080 (v4) :8081 (v6)
#   h1: redis-benchmark, redis-cli, curl
#
# What breaks it: anything that corrupts payload bytes (a wrong Buffer
# offset, a Buffer reused before the receiver is done with it, bad
# checksum offload metadata): the sha256 of the 5 MB download and of the
# redis value must match; stalls show as timeouts.
. "$(dirname "$0")/lib.sh"

ktap_plan 8
drack_setup 2 || ktap_finish

D=$DRACK_LOGDIR
listening() { in_ns "$1" ss -Hltn "sport = :$2" | grep -q LISTEN; }

bg redis ip netns exec h0 timeout 600 redis-server --bind 198.18.0.1 --port 6390 \
	--save '' --appendonly no --protected-mode no --daemonize no --dir "$D"
wait_for 15 listening h0 6390 || log "redis-server is not listening: $(tail -n 5 "$D/redis.log")"

redis_bench() {
	local out
	out=$(in_ns h1 timeout 60 redis-benchmark -h 198.18.0.1 -p 6390 -q -n 2000 -t set,get 2>&1) ||
		{ echo "redis-benchmark failed: $out"; return 1; }
	out=$(tr '\r' '\n' <<<"$out" | grep -E '^(SET|GET): .*requests per second')
	echo "$out"
	grep -q '^SET: ' <<<"$out" && grep -q '^GET: ' <<<"$out"
}
ktap_check redis_benchmark redis_bench

redis_big() {
	local want got
	head -c 300000 /dev/urandom | base64 -w0 >"$D/value"
	want=$(sha256sum <"$D/value" | cut -d' ' -f1)
	in_ns h1 timeout 30 redis-cli -h 198.18.0.1 -p 6390 -x set bigkey <"$D/value" | grep -q OK ||
		{ echo "SET of a 400 KB value failed"; return 1; }
	got=$(in_ns h1 timeout 30 redis-cli -h 198.18.0.1 -p 6390 get bigkey | head -c -1 | sha256sum | cut -d' ' -f1)
	[[ $got == "$want" ]] || { echo "GET returned different bytes ($got != $want)"; return 1; }
}
ktap_check redis_bigvalue redis_big

mkdir -p "$D/www"
head -c $((5 << 20)) /dev/urandom >"$D/www/file.bin"
SUM=$(sha256sum <"$D/www/file.bin" | cut -d' ' -f1)
bg http4 ip netns exec h0 timeout 600 python3 -m http.server 8080 --bind 198.18.0.1 --directory "$D/www"
bg http6 ip netns exec h0 timeout 600 python3 -m http.server 8081 --bind 2001:db8:d7::1 --directory "$D/www"
wait_for 15 listening h0 8080 || log "http.server v4 is not listening"
wait_for 15 listening h0 8081 || log "http.server v6 is not listening"

fetch() {
	local url=$1 got
	rm -f "$D/got.bin"
	in_ns h1 timeout 90 curl -sS -g --max-time 80 -o "$D/got.bin" -w '%{size_download} bytes %{speed_download} B/s\n' "$url" ||
		return 1
	got=$(sha256sum <"$D/got.bin" | cut -d' ' -f1)
	[[ $got == "$SUM" ]] || { echo "sha256 mismatch: $got != $SUM ($(stat -c %s "$D/got.bin") bytes)"; return 1; }
}
ktap_check http_v4_5mb fetch http://198.18.0.1:8080/file.bin
ktap_check http_v6_5mb fetch 'http://[2001:db8:d7::1]:8081/file.bin'

drack_finish
