# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the QEMU test harness; source it from bash: . tests/vm/lib.sh
#
# Several guests at once:
#   vm_start NAME [tools/rack/run-guest.sh options] -- COMMAND...   start a guest in the background
#   vm_wait NAME                                         wait for one, return its rc
#   vm_wait_all                                          wait for all; rc 0 iff all passed
#   vm_outdir NAME                                       its output dir (output, dmesg, console.log, rc)
#   vm_shm_create SIZE                                   new shared-memory file, prints its path
#   vm_ivshmem_args, vm_ivshmem_doorbell_args, vm_need_pkgs ...  from tools/rack/guest.sh
# At exit of the sourcing shell, guests still running are killed, shm files
# removed, and the output dirs too unless a guest failed (VM_KEEP=1 keeps them).
# A script that sets its own EXIT trap must call vm_cleanup from it.

# One guest (run-guest.sh, the package and ivshmem helpers) belongs to the
# rack launcher: tools/rack/guest.sh, the only copy.
# shellcheck source=../../tools/rack/guest.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tools/rack/guest.sh"

# ---- several guests -------------------------------------------------------

declare -gA VM_PIDS=()
declare -ga VM_NAMES=()
VM_RUNS=${VM_RUNS:-} # where vm_start puts guests' output dirs (default: a temp dir)
VM_RUNS_TMP=

vm_cleanup() {
	local n
	for n in "${VM_NAMES[@]}"; do
		[[ -n ${VM_PIDS[$n]:-} ]] && kill "${VM_PIDS[$n]}" 2>/dev/null
	done
	rm -f /dev/shm/drack-vm."$$".*
	[[ -z $VM_RUNS_TMP || ${VM_KEEP:-0} == 1 ]] || rm -rf "$VM_RUNS_TMP"
	return 0
}
trap vm_cleanup EXIT

vm_outdir() { echo "$VM_RUNS/$1"; }

vm_start() {
	local name=$1; shift
	if [[ -z $VM_RUNS ]]; then
		VM_RUNS=$(mktemp -d "${TMPDIR:-/tmp}/drack-vms.XXXXXX")
		VM_RUNS_TMP=$VM_RUNS # ours to remove
	fi
	mkdir -p "$VM_RUNS/$name"
	# The guest's stdout+stderr go to NAME/output (run-guest.sh copies stdout there too).
	"$VM_GUEST" --name "$name" --outdir "$VM_RUNS/$name" "$@" \
		>/dev/null 2>"$VM_RUNS/$name/run-guest.err" </dev/null &
	VM_PIDS[$name]=$!
	VM_NAMES+=("$name")
}

vm_wait() {
	local rc=0
	wait "${VM_PIDS[$1]}" || rc=$?
	VM_PIDS[$1]=
	return $rc
}

vm_wait_all() {
	local n rc fail=0
	for n in "${VM_NAMES[@]}"; do
		[[ -n ${VM_PIDS[$n]:-} ]] || continue
		rc=0; vm_wait "$n" || rc=$?
		if ((rc)); then
			fail=1 VM_KEEP=1
			vm_log "guest $n FAILED rc=$rc (output in $VM_RUNS/$n)"
			tail -n 20 "$VM_RUNS/$n/output" "$VM_RUNS/$n/run-guest.err" 2>/dev/null | sed "s/^/[$n] /" >&2
		else
			vm_log "guest $n ok"
		fi
	done
	return $fail
}

# Shared memory for ivshmem-plain lives in /dev/shm; size like 64M (power of
# two). Named after $$ (same in $(...) subshells) so that vm_cleanup finds it.
vm_shm_create() {
	local f
	f=$(mktemp /dev/shm/drack-vm."$$".XXXXXX)
	truncate -s "$1" "$f"
	echo "$f"
}
