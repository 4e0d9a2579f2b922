#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# packages.sh: the Debian packages, end to end (`make deb-check`).
#
# On the host: `make deb` (dpkg-buildpackage -us -uc -b in a scratch copy,
# .build-deb/*.deb), then DKMS builds drack.ko from drack-dkms's
# /usr/src/drack-1.0 for every kernel with headers under /lib/modules, in a
# private DKMS tree (the host's own DKMS state and /lib/modules stay as they
# are). Then one QEMU guest runs tests/pkg/guest.sh: dpkg -i of the packages
# and a two-host rack from the installed paths only, the build tree hidden.
#
# KTAP on stdout, the guest's results nested; exit status non-zero on any
# failure. Env: DRACK_PKG_TIMEOUT (the guest's, default 900 s), DRACK_DEBS (a
# directory with the .debs: test those, build nothing).
#
# What breaks it: debian/ out of step with the Makefiles (deb), a kernel the
# module does not build for through dkms.conf (dkms_KVER), and all that
# tests/pkg/guest.sh lists (guest).

# Not -e: every step reports its own result and the next one still runs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
TOP=$PWD
TIMEOUT=${DRACK_PKG_TIMEOUT:-900}
T0=$SECONDS

# The guest hides $TOP, so the work directory must be outside it.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/drack-pkg.XXXXXX") || exit 2
[[ $WORK != "$TOP"/* ]] || { rm -rf "$WORK"; WORK=$(mktemp -d /tmp/drack-pkg.XXXXXX) || exit 2; }
trap 'rm -rf "$WORK"' EXIT

N=0 FAILED=0
result() { # RC NAME [WHY]
	N=$((N + 1))
	if (($1 == 0)); then
		echo "ok $N $2"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $2"
		[[ -z ${3:-} ]] || echo "# $3"
	fi
}

# step NAME CMD...: CMD's output as diagnostics (all of it on failure, the
# tail otherwise), one result
step() {
	local name=$1 rc=0 t0=$SECONDS out=$WORK/$1.log; shift
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	if ((rc)); then
		sed 's/^/# /' "$out"
	else
		tail -n 3 "$out" | sed 's/^/# /'
	fi
	echo "# $name: rc $rc, $((SECONDS - t0)) s"
	result "$rc" "$name" "$* failed (rc $rc)"
	return "$rc"
}

KVERS=()
for k in /lib/modules/*; do
	[[ -e $k/build ]] && KVERS+=("${k##*/}")
done

echo "KTAP version 1"
echo "1..$((2 + ${#KVERS[@]}))"

DEBS=${DRACK_DEBS:-$TOP/.build-deb}
if [[ -n ${DRACK_DEBS:-} ]]; then
	N=$((N + 1))
	echo "ok $N deb # SKIP the .debs in $DRACK_DEBS"
else
	step deb make -s deb
fi

# dkms.conf: DKMS builds drack.ko from the package's source for each kernel.
DKMS_SRC=$WORK/dkms-src DKMS_TREE=$WORK/dkms-tree
dkms_unpack() {
	dpkg-deb -x "$(ls "$DEBS"/drack-dkms_*_all.deb)" "$DKMS_SRC" &&
		mkdir -p "$DKMS_TREE" &&
		dkms add -m drack -v 1.0 --sourcetree "$DKMS_SRC/usr/src" --dkmstree "$DKMS_TREE"
}
dkms_build() { # KVER
	dkms build -m drack -v 1.0 -k "$1" --sourcetree "$DKMS_SRC/usr/src" --dkmstree "$DKMS_TREE" || return 1
	ls "$DKMS_TREE/drack/1.0/$1"/*/module/drack.ko*
}
unpacked=0
for k in "${KVERS[@]}"; do
	if ((!unpacked)); then
		if dkms_unpack >"$WORK/dkms-add.log" 2>&1; then
			unpacked=1
		else
			sed 's/^/# /' "$WORK/dkms-add.log"
		fi
	fi
	if ((unpacked)); then
		step "dkms_$k" dkms_build "$k"
	else
		result 1 "dkms_$k" "drack-dkms could not be unpacked and added"
	fi
done

# The guest gets the .debs and a copy of the test helpers, nothing else.
share_prepare() {
	local share=$WORK/share
	mkdir -p "$share"/{debs,tests/net,tests/pkg,tools/rack} || return 1
	cp "$DEBS"/drack-dkms_*.deb "$DEBS"/drack-tools_*.deb "$DEBS"/libdrack1_*.deb \
		"$DEBS"/libdrack-dev_*.deb "$share/debs/" || return 1
	cp tests/net/lib.sh "$share/tests/net/" && cp tools/rack/addr.sh "$share/tools/rack/" &&
		cp tests/pkg/guest.sh "$share/tests/pkg/"
}
guest() {
	local rc=0 t0=$SECONDS
	echo "# --- guest: install the packages, a two-host rack from /usr"
	share_prepare || { result 1 guest "cannot prepare the guest's share"; return 1; }
	# cwd outside the tree: the guest starts there.
	(cd "$WORK" && "$TOP/tools/rack/run-guest.sh" --timeout "$TIMEOUT" --mem 2048 --name pkg \
		--share "$WORK/share" -- "bash /hostshare/tests/pkg/guest.sh /hostshare/debs $TOP") \
		</dev/null 2>"$WORK/guest.err" | sed -u 's/^/    /' || rc=${PIPESTATUS[0]}
	sed 's/^/# /' "$WORK/guest.err"
	echo "# guest: rc $rc, $((SECONDS - t0)) s"
	result "$rc" guest "run-guest.sh rc $rc (124: timeout, 125: the guest died, 1: a failed check or kernel log problem)"
}
guest

echo "# packages: $((SECONDS - T0)) s"
((FAILED == 0))
