#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two guests share one ivshmem-plain pool: A writes a string into BAR2, B
# reads it and acks, A sees the ack. Proves lib.sh's multi-guest functions.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/lib.sh

pool=$(vm_shm_create 4M)
nonce=$RANDOM$RANDOM
rw="python3 tests/vm/ivshmem-rw.py"
start=$SECONDS

vm_start a --smp 1 --timeout 120 --qemu-extra "$(vm_ivshmem_args "$pool")" -- \
	"$rw write 0 'hello from A $nonce' && $rw wait 4096 'ack $nonce' 60"
vm_start b --smp 1 --timeout 120 --qemu-extra "$(vm_ivshmem_args "$pool")" -- \
	"$rw wait 0 'hello from A' 60 && $rw write 4096 'ack $nonce'"
rc=0
vm_wait_all || rc=1
echo "two guests took $((SECONDS - start))s"

grep -qx "hello from A $nonce" "$(vm_outdir b)/output" || { echo "B did not read A's string"; rc=1; }
grep -qx "ack $nonce" "$(vm_outdir a)/output" || { echo "A did not see B's ack"; rc=1; }
# The host sees the same memory.
grep -aq "hello from A $nonce" "$pool" || { echo "host does not see the string"; rc=1; }
echo "B read: $(cat "$(vm_outdir b)/output")"
((rc)) && echo "selftest-ivshmem: FAIL" || echo "selftest-ivshmem: ok"
exit $rc
