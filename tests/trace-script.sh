#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# trace-script.sh: where a tests/net script's time goes, line by line.
#
#   trace-script.sh DIR TEST...     (in a guest) run each tests/net/TEST.sh
#                                   traced, into DIR/trace-TEST, its output
#                                   into DIR/out-TEST
#   trace-script.sh --report FILE [N]  the N (30) lines of the script that
#                                   took longest, with what ran under them
#
# Usage, from the top of the tree:
#
#   mkdir -p /tmp/prof
#   tools/rack/run-guest.sh --share /tmp/prof -- bash tests/trace-script.sh /hostshare queues
#   tests/trace-script.sh --report /tmp/prof/trace-queues
#
# The time between one trace line and the next belongs to the first, and
# is summed under the innermost line of the test script itself (a helper
# of lib.sh counts for the line that called it). Root's bash ignores PS4
# from the environment, hence the bash -c; the trace has a descriptor of
# its own so that no $(...) captures it.
set -u
cd "$(dirname "$0")/.." || exit 2

if [[ ${1:-} == --report ]]; then
	exec python3 - "$2" "${3:-30}" <<'PY'
import collections, re, sys
path, top = sys.argv[1], int(sys.argv[2])
script = path.rsplit("trace-", 1)[-1] + ".sh"
total, text, stack, prev = collections.Counter(), {}, {}, None
for line in open(path, errors="replace"):
    m = re.match(r"^(\++) (\d+\.\d+) (\S*):(\d+) (.*)", line)
    if not m:
        continue
    depth, ts = len(m.group(1)), float(m.group(2))
    if prev:
        total[prev[0]] += ts - prev[1]
    stack = {d: k for d, k in stack.items() if d < depth or (d == depth and m.group(3) != script)}
    if m.group(3) == script:
        key = "%s:%s" % (script, m.group(4))
        stack[depth] = key
        text.setdefault(key, m.group(5)[:90])
    prev = (stack[max(stack)] if stack else "(setup)", ts)
print("%.0f s in all" % sum(total.values()))
for key, t in total.most_common(top):
    print("%7.1f  %-20s %s" % (t, key, text.get(key, "")))
PY
fi

(($# >= 2)) || { echo "usage: $0 DIR TEST... | --report FILE [N]" >&2; exit 2; }
dir=$1
shift
for t in "$@"; do
	t0=$SECONDS
	# shellcheck disable=SC2016 # expanded by the traced bash
	BASH_XTRACEFD=9 bash -c 'PS4="+ \$EPOCHREALTIME \${BASH_SOURCE##*/}:\$LINENO "; set -x; . "$0"' \
		"tests/net/$t.sh" 9>"$dir/trace-$t" >"$dir/out-$t" 2>&1
	echo "$t: rc $?, $((SECONDS - t0)) s"
done
