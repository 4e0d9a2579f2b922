#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-612.sh [TEST...]: guest tests on Debian's 6.12 kernel, with the
# module `make check-612` built (.build-612/kmod/drack.ko). Default: the
# tests whose kernel interfaces differ most between 6.1 and 6.12 (skb
# frags and page references, ethtool, netdev lifetime, the netdev
# family's queues and qstats with the kernel's own driver tests, XDP's
# page_pool and xdp_features).
#
# The guest runs them the kselftest way, `make -C tests run_tests T=...`
# (kselftest's runner.sh, tests/settings), so `make check` exercises that
# path too. The runner's exit status says nothing of the results:
# tests/vm/ktap-summary.sh counts them, and a test that skipped itself
# fails here as well.
set -euo pipefail
cd "$(dirname "$0")/.."

k612=$(cd /lib/modules && ls -d 6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
ko=$PWD/.build-612/kmod/drack.ko
[[ -n $k612 && -e /boot/vmlinuz-$k612 ]] || { echo "no 6.12 kernel image (tests/install-deps.sh)"; exit 1; }
[[ -e $ko ]] || { echo "no $ko: run make check-612"; exit 1; }
bash tests/kernel-selftests.sh >/dev/null	# for drv_net
# Default: without queues.sh's checks of how peers with different queue
# counts map their ref_queues, drack's own logic the 6.1 guest ran.
skip=
if ((!$#)); then
	set -- basic byref lifetime drv_net xdp queues netconsole
	skip="mixed_4_to_1 mixed_4_to_3 mixed_2_to_4"
fi
out=$(mktemp "${TMPDIR:-/tmp}/drack-612.XXXXXX")
trap 'rm -f "$out"' EXIT
rc=0
tools/rack/run-guest.sh --kver "$k612" --timeout "${DRACK_GUEST_TIMEOUT:-900}" --name drack-612 -- \
	"set -o pipefail; DRACK_KO=$ko DRACK_SKIP_CHECKS='$skip' make -s -C tests run_tests T='$*' | bash tests/vm/ktap-summary.sh" |
	tee "$out" || rc=${PIPESTATUS[0]}
if grep -qE '^ok [0-9]+ selftests: .*# SKIP' "$out"; then
	echo "# guest-612: a test skipped itself"
	((rc)) || rc=1
fi
exit "$rc"
