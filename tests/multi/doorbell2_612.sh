#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# doorbell2_612: doorbell2 with both VMs on Debian's 6.12 kernel, whose
# ZONE_DEVICE code (compound pages by vmemmap_shift, the refcount of idle
# pages, memunmap_pages) differs from 6.1's. Skipped without a 6.12
# kernel image or module (make check-612).
. "$(dirname "$0")/lib.sh"

k612=$(cd /lib/modules && ls -d 6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
if [[ -z $k612 || ! -e /boot/vmlinuz-$k612 || ! -e $TOP/.build-612/kmod/drack.ko ]]; then
	ktap_plan 1
	ktap_skip doorbell2_612 "no 6.12 kernel image or module (make check-612, linux-image-$k612)"
	exit 0	# as cxl2's 6.12 half: a machine without 6.12 is not a failure
fi
DRACK_MULTI_KVER=$k612 DRACK_LOGDIR=$LOGDIR exec bash "$TOP/tests/multi/doorbell2.sh"
