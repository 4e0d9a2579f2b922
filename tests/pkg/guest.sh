#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest.sh TREE: runs in a QEMU guest that tests/pkg/packages.sh boots on a
# root where dpkg installed drack-dkms, drack-tools, libdrack1 and
# libdrack-dev (drack-dkms's postinst had DKMS build drack.ko). Runs a
# two-host rack from the installed paths only:
#
#   h0 rack0 (ip link add ... type drack pool 0 host 0)  <-- ram pool 0 -->
#   h1 rack0 (drackctl link add rack0 pool 0 host 1 netns h1)
#
# modprobe loads the drack.ko DKMS built for this kernel, drack-fmd runs as
# the systemd unit's ExecStart says, ping and iperf3 cross rack0, drackctl
# -j shows both links, a program built with libdrack-dev's pkg-config file
# runs on libdrack1 (the guest's writes stay in its own tmpfs). The purge
# runs on the host afterwards (packages.sh): under TCG it took 263 s.
#
# The build tree TREE is hidden under an empty tmpfs, the cwd and PATH are
# outside it: nothing of a build can stand in for the packages. The helpers
# (tests/net/lib.sh) come from a copy in /hostshare, not the tree.
#
# What breaks it: a file missing from a package or installed elsewhere
# (installed_paths), the module not built or not found by modprobe (dkms,
# modprobe), a soname or pkg-config file that does not link (libdrack_dev),
# the ip plugin not where Debian's ip looks (ip_plugin), the unit's
# ExecStart wrong (fmd_unit).

TREE=$1
# shellcheck disable=SC2034 # read by lib.sh
DRACK_TEST=packages
# shellcheck source-path=SCRIPTDIR source=../net/lib.sh
. "$(dirname "$0")/../net/lib.sh"

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset IP_LIB_DIR LD_LIBRARY_PATH PKG_CONFIG_PATH
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
KVER=$(uname -r)
PKGS=(drack-dkms drack-tools libdrack1 libdrack-dev)

ktap_plan 16

# The build tree hidden, the packages installed, a cwd of our own.
clean_start() {
	local p
	[[ -n $TREE && -d $TREE ]] || { echo "no build tree '$TREE' to hide"; return 1; }
	mount -t tmpfs -o size=1m,mode=0755 drack-hidden "$TREE" || return 1
	[[ -z $(ls -A "$TREE") ]] || { echo "$TREE still shows files"; return 1; }
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" | grep -qx 'install ok installed' ||
			{ echo "$p: $(dpkg-query -W -f='${Status}' "$p" 2>&1)"; return 1; }
	done
	cd "$(mktemp -d /root/pkg.XXXXXX)" || return 1
	# What udev makes on a real machine and the guest's bare devtmpfs
	# lacks: dkms (dkms status) uses bash's <(...), which needs /dev/fd.
	[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
}
ktap_check clean_start clean_start || ktap_finish

# DKMS built and installed drack.ko for the running kernel.
dkms_ok() {
	local st ko
	st=$(dkms status drack/1.0 -k "$KVER") || return 1
	echo "$st"
	[[ $st == *": installed"* ]] || { echo "drack/1.0 not installed for $KVER"; return 1; }
	ko=$(modinfo -n drack) || { echo "modinfo finds no drack"; return 1; }
	echo "$ko"
	[[ $ko == /lib/modules/$KVER/updates/dkms/drack.ko* ]] || { echo "drack.ko at $ko"; return 1; }
}
ktap_check dkms dkms_ok

# Every file where the packages say, every program found on PATH in /usr.
installed_paths() {
	local p f bad=0 unit
	for p in drackctl drack-fmd drack-rack drack-ivshmem-server; do
		f=$(command -v "$p") || { echo "$p: not on PATH"; bad=1; continue; }
		[[ $f == /usr/sbin/$p ]] || { echo "$p: $f, expected /usr/sbin/$p"; bad=1; }
		[[ -e /usr/share/man/man8/$p.8.gz ]] || { echo "$p: no man page"; bad=1; }
	done
	for f in /usr/lib/"$MA"/ip/link_drack.so /usr/share/bash-completion/completions/drackctl \
		/etc/drack/fmd.conf /lib/systemd/system/drack-fmd.service /usr/lib/"$MA"/libdrack.so.1 \
		/usr/include/drack/drack.h /usr/include/drack/uapi/drack.h /usr/lib/"$MA"/pkgconfig/libdrack.pc \
		/usr/src/drack-1.0/dkms.conf; do
		[[ -e $f ]] || { echo "missing: $f"; bad=1; }
	done
	dpkg-query -W -f='${Conffiles}\n' drack-tools | grep -q '/etc/drack/fmd.conf' ||
		{ echo "/etc/drack/fmd.conf is not a conffile"; bad=1; }
	# drack-fmd serves one pool from one host: installing must not enable it.
	unit=$(ls /etc/systemd/system/*.wants/drack-fmd.service 2>/dev/null)
	[[ -z $unit ]] || { echo "drack-fmd.service enabled: $unit"; bad=1; }
	# The programs load only system libraries.
	for f in /usr/sbin/drackctl /usr/sbin/drack-fmd /usr/sbin/drack-ivshmem-server; do
		if ldd "$f" | grep -vE '=> /(usr/)?lib/|linux-vdso|ld-linux'; then
			echo "$f: a library from elsewhere"; bad=1
		fi
	done
	# Bash completion loads and completes drackctl.
	bash -c '. /usr/share/bash-completion/completions/drackctl && complete -p drackctl' ||
		{ echo "the completion does not register for drackctl"; bad=1; }
	return "$bad"
}
ktap_check installed_paths installed_paths

# The iproute2 plugin where Debian's ip looks (no IP_LIB_DIR).
ip_plugin() {
	local out
	out=$(ip link help drack 2>&1) || { echo "$out"; return 1; }
	[[ $out == *'drack [ pool POOL ] [ host HOST ]'* ]] || { echo "ip link help drack: $out"; return 1; }
}
ktap_check ip_plugin ip_plugin

load() {
	drack_reset
	modprobe drack || return 1
	# shellcheck disable=SC2034 # drack_cleanup rmmods it
	DRACK_LOADED=1
	wait_for 5 test -c "$DRACK_POOL_DEV" || { echo "no $DRACK_POOL_DEV"; return 1; }
	grep -q '^drack ' /proc/modules
}
ktap_check modprobe load || ktap_finish

# drack-fmd started exactly as the unit would (ExecStart), without systemd.
start_fmd() {
	local exec
	exec=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/drack-fmd.service)
	[[ $exec == /usr/sbin/drack-fmd* ]] || { echo "ExecStart=$exec"; return 1; }
	# shellcheck disable=SC2086 # the unit's command line, split as systemd would
	$exec >/tmp/fmd.log 2>&1 </dev/null &
	DRACK_FMD_PID=$!
	sleep 0.5
	kill -0 "$DRACK_FMD_PID" 2>/dev/null || { echo "drack-fmd exited:"; cat /tmp/fmd.log; DRACK_FMD_PID=; return 1; }
}
ktap_check fmd_unit start_fmd || ktap_finish

host_addr() { # NS I
	ip -n "$1" addr add "$(ip4 "$2")/24" dev rack0 &&
		ip -n "$1" addr add "$(ip6 "$2")/64" dev rack0 nodad &&
		ip -n "$1" link set rack0 up
}
# h0 through the ip plugin, h1 through drackctl: both installed front ends.
two_hosts() {
	drack_netns_add h0 || return 1
	drack_netns_add h1 || return 1
	ip link add rack0 netns h0 type drack pool 0 host 0 || return 1
	DRACK_HOSTS+=(h0)
	drackctl link add rack0 pool 0 host 1 netns h1 || return 1
	DRACK_HOSTS+=(h1)
	host_addr h0 0 || return 1
	host_addr h1 1 || return 1
	if ! wait_for 10 has_carrier h0 || ! wait_for 10 has_carrier h1; then
		echo "no carrier"
		return 1
	fi
	wait_for 20 ping_once h1 "$(ip4 0)" || { echo "h1 cannot ping h0"; drack_dump_stats; return 1; }
}
ktap_check two_hosts two_hosts || ktap_finish

ktap_check ping4 eval 'ping_ok h0 $(ip4 1) && ping_ok h1 $(ip4 0)'
ktap_check ping6 eval 'ping_ok h0 $(ip6 1) && ping_ok h1 $(ip6 0)'
iperf_server h0 5201 >/dev/null
iperf_check tcp h1 "$(ip4 0)" 5201 10 100 -t 5

# drackctl -j link show in each netns: the link, its pool, host, carrier.
links_json() {
	local i out
	for i in 0 1; do
		out=$(in_ns "h$i" drackctl -j link show) || return 1
		echo "h$i: $out"
		python3 -c '
import json, sys
d = json.loads(sys.argv[1]); i = int(sys.argv[2])
ok = len(d) == 1 and d[0]["ifname"] == "rack0" and d[0]["pool"] == 0 and d[0]["host"] == i
sys.exit(0 if ok else 1)' "$out" "$i" || { echo "h$i: unexpected drackctl -j link show"; return 1; }
	done
	out=$(drackctl host show pool 0) || return 1
	echo "$out"
	[[ $(grep -c 'state up' <<<"$out") == 2 ]] || { echo "expected 2 hosts up"; return 1; }
}
ktap_check drackctl_json links_json

# A program built against libdrack-dev, run on libdrack1: the pool list.
libdrack_dev() {
	local lib
	cat >pools.c <<'EOF'
#include <stdio.h>
#include <drack/drack.h>

static int show(const struct drack_pool_info *p, void *arg)
{
	(void)arg;
	printf("pool %u %s max_hosts %u fm_pid %u\n", p->id, p->backend, p->max_hosts, p->fm_pid);
	return 0;
}

int main(void)
{
	struct drack_nl *nl = drack_nl_open();
	int n;

	if (!nl) {
		perror("drack_nl_open");
		return 1;
	}
	n = drack_pool_list(nl, show, NULL);
	drack_nl_close(nl);
	return n < 0;
}
EOF
	# shellcheck disable=SC2046 # pkg-config prints several flags
	cc -std=c11 -Wall -Wextra -Werror -o pools pools.c $(pkg-config --cflags --libs libdrack) || return 1
	# /lib is /usr/lib (merged /usr): compare real paths
	lib=$(ldd ./pools | awk '$1 == "libdrack.so.1" { print $3 }')
	[[ $(realpath "$lib") == /usr/lib/$MA/libdrack.so.1 ]] || { ldd ./pools; return 1; }
	./pools | tee pools.out || return 1
	grep -Eq "^pool 0 ram max_hosts [0-9]+ fm_pid $DRACK_FMD_PID\$" pools.out
}
ktap_check libdrack_dev libdrack_dev

# The rack launcher runs from its installed layout (its VMs need more than
# a TCG guest should boot here: help and status only).
rack_launcher() {
	local out
	out=$(drack-rack help) || { echo "$out"; return 1; }
	[[ $out == *"usage: drack-rack"* ]] || { echo "$out"; return 1; }
	out=$(drack-rack --dir /run/drack-rack-pkg status 2>&1)
	echo "status: $out"
	[[ $out == *"no rack running"* ]] || return 1
	[[ $(readlink /usr/lib/drack/rack/kmod/drack.ko) == /var/lib/drack/rack/drack.ko ]]
}
ktap_check drack_rack rack_launcher

ktap_check buffers_home drack_check_buffers_home
ktap_check teardown drack_cleanup

ktap_check dmesg_clean drack_dmesg_check
diag "guest.sh: $SECONDS s"
ktap_finish
