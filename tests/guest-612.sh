#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-612.sh [TEST...]: guest tests on Debian's 6.12 kernel, with the
# module `make check-612` built (.build-612/kmod/drack.ko). Default: the
# tests whose kernel interfaces differ most between 6.1 and 6.12 (skb
# frags and page references, ethtool, netdev lifetime, the netdev
# family's queues and qstats with the kernel's own driver tests).
set -euo pipefail
cd "$(dirname "$0")/.."

k612=$(cd /lib/modules && ls -d 6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
ko=$PWD/.build-612/kmod/drack.ko
[[ -n $k612 && -e /boot/vmlinuz-$k612 ]] || { echo "no 6.12 kernel image (tests/install-deps.sh)"; exit 1; }
[[ -e $ko ]] || { echo "no $ko: run make check-612"; exit 1; }
bash tests/kernel-selftests.sh >/dev/null	# for drv_net
(($#)) || set -- basic byref lifetime drv_net
tools/rack/run-guest.sh --kver "$k612" --timeout "${DRACK_GUEST_TIMEOUT:-900}" --name drack-612 -- \
	"DRACK_KO=$ko bash tests/guest-suite.sh $*"
