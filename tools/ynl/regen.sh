#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# regen.sh: generate drack's netlink code from its one source,
# Documentation/netlink/specs/drack.yaml, with the kernel's own generator
# (tools/net/ynl/ynl-gen-c.py of Debian's linux-source-6.12) and, for
# libdrack's libnl policy, tools/ynl/libnl-policy.py.
#
#   regen.sh           write the generated files
#   regen.sh --check   generate into a temporary folder and fail (with a
#                      diff) if a checked-in file differs: it drifted
#
# Generated (checked in, never edited by hand):
#   kmod/uapi/drack_genl.h   the family's uapi enums (uapi mode)
#   kmod/netlink_gen.[ch]    request policy, op table, handler prototypes
#   lib/policy_gen.c         libdrack's attribute policy
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
spec=Documentation/netlink/specs/drack.yaml
py=/usr/bin/python3		# Debian's, with python3-yaml and python3-jsonschema

# The generator and its schema, from Debian's linux-source-6.12 (or $YNL_KSRC).
ynl_src() {
	local tar=/usr/src/linux-source-6.12.tar.xz cache=$top/tools/ynl/.cache
	if [[ -n ${YNL_KSRC:-} ]]; then
		echo "$YNL_KSRC"
		return
	fi
	if [[ ! -e $cache/linux-source-6.12/tools/net/ynl/ynl-gen-c.py ]]; then
		[[ -e $tar ]] || { echo "regen.sh: no $tar: apt-get install linux-source-6.12" >&2; exit 1; }
		mkdir -p "$cache"
		tar -xJf "$tar" -C "$cache" --wildcards '*/tools/net/ynl/*' \
			'*/Documentation/netlink/genetlink-legacy.yaml'
	fi
	echo "$cache/linux-source-6.12"
}
ksrc=$(ynl_src)
gen=$ksrc/tools/net/ynl/ynl-gen-c.py
schema=$ksrc/Documentation/netlink/genetlink-legacy.yaml

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=.
if [[ ${1:-} == --check ]]; then
	out=$work/out
	mkdir -p "$out/kmod/uapi" "$out/lib"
fi

# ynl-gen-c.py reads the schema next to the specs folder and names the
# spec relative to the folder holding MAINTAINERS: run it from here on a
# copy laid out as in the kernel.
mkdir -p "$work/Documentation/netlink/specs"
cp "$spec" "$work/Documentation/netlink/specs/"
cp "$schema" "$work/Documentation/netlink/"
touch "$work/MAINTAINERS"

ynl() {	# MODE header|source OUT (its base name gives the #include)
	local f=$work/${3##*/}
	(cd "$work" && "$py" "$gen" --mode "$1" "--$2" --spec "$spec" -o "$f") >&2
	cp "$f" "$out/$3"
}
ynl uapi header kmod/uapi/drack_genl.h
ynl kernel header kmod/netlink_gen.h
ynl kernel source kmod/netlink_gen.c
"$py" tools/ynl/libnl-policy.py "$spec" >"$out/lib/policy_gen.c"

if [[ $out != . ]]; then
	rc=0
	for f in kmod/uapi/drack_genl.h kmod/netlink_gen.h kmod/netlink_gen.c lib/policy_gen.c; do
		diff -u "$f" "$out/$f" || { echo "regen.sh: $f drifted from $spec: run make netlink-gen" >&2; rc=1; }
	done
	exit $rc
fi
