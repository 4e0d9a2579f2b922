# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# drack-rack exec: run a command line in a VM through its agent's command
# directory (tools/rack/agent.sh describes the files), stream its output,
# return its exit status.

# node_exec [-t SECS] VM CMD...: CMD's words joined by spaces, as ssh does,
# run by bash as root in the VM (cwd: the tree, the tools in PATH, stdin
# /dev/null). Exit status: CMD's; 124 after -t SECS; 255 if the VM is
# not running or died meanwhile.
node_exec() {
	local t=0 vm ctl id fd rc=255 killed=0 deadline=0 now gaveup
	[[ ${1:-} == -t ]] && { t=$2 && shift 2; }
	(($# >= 2)) || rack_die "usage: drack-rack exec [-t SECS] VM CMD..."
	vm=$1; shift
	rack_vm_check "$vm"
	node_running "$vm" || { rack_log "vm$vm is not running ($(node_state "$vm"))"; return 255; }
	ctl=$(node_dir "$vm")/ctl
	id=$(date +%s%N).$$.$RANDOM
	: >"$ctl/$id.out"
	printf '%s\n' "$*" >"$ctl/$id.new"
	mv "$ctl/$id.new" "$ctl/$id.cmd"
	exec {fd}<"$ctl/$id.out"
	# ^C: the command is stopped in the VM, we return what it says.
	trap 'killed=130; : >"$ctl/$id.kill"' INT TERM
	((t > 0)) && deadline=$((SECONDS + t))
	while [[ ! -e $ctl/$id.rc ]]; do
		cat <&"$fd"
		now=$SECONDS
		if ! node_running "$vm"; then
			rack_log "vm$vm stopped running before the command finished"
			break
		fi
		if ((t > 0 && now >= deadline && !killed)); then
			killed=124
			: >"$ctl/$id.kill"
		fi
		# A stopped command has 2 s before SIGKILL; give up 10 s later.
		if ((killed && now >= ${gaveup:=$((now + 12))})); then
			rack_log "vm$vm: command $id does not stop"
			break
		fi
		sleep 0.1
	done
	trap - INT TERM
	cat <&"$fd"
	exec {fd}<&-
	[[ -e $ctl/$id.rc ]] && rc=$(<"$ctl/$id.rc")
	((killed)) && rc=$killed
	rm -f "$ctl/$id".*
	return "$rc"
}
