#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel-selftests.sh: the kernel's own NIC driver tests, the ones every
# driver is held to (tools/testing/selftests/drivers/net: stats.py,
# queues.py, ping.py), with the YNL library and netlink specs they need,
# extracted once from Debian's linux-source-6.12 into tests/.linux-6.12.
# tests/net/drv_net.sh runs them against rack0 in a guest. Prints the
# folder. Run on the host before the guest (the guest's / is read only).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tar=/usr/src/linux-source-6.12.tar.xz
out=$top/tests/.linux-6.12
ksrc=$out/linux-source-6.12

if [[ ! -e $ksrc/.complete ]]; then
	[[ -e $tar ]] || { echo "no $tar: apt-get install linux-source-6.12 (tests/install-deps.sh)" >&2; exit 1; }
	rm -rf "$out" && mkdir -p "$out"
	tar -xJf "$tar" -C "$out" --wildcards \
		'*/tools/testing/selftests/drivers/net/*.py' \
		'*/tools/testing/selftests/net/lib/py/*' \
		'*/tools/net/ynl/lib/*' \
		'*/Documentation/netlink/specs/netdev.yaml' \
		'*/Documentation/netlink/specs/ethtool.yaml' \
		'*/Documentation/netlink/specs/rt_link.yaml'
	# rt_link's spec decodes IFLA_INFO_DATA by link kind and refuses kinds
	# it does not know: add drack's, as an upstream driver would.
	python3 - "$ksrc/Documentation/netlink/specs/rt_link.yaml" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
attrs = "".join(f"""      -
        name: {a}
        type: u32
""" for a in ("pool", "host", "state", "peers", "sections", "carrier-reason"))
s = s.replace("""  -
    name: xdp-attrs
""", f"""  -
    name: linkinfo-drack-attrs
    name-prefix: ifla-drack-
    attributes:
      -
        name: unspec
        type: unused
        value: 0
{attrs}  -
    name: xdp-attrs
""", 1)
s = s.replace("""    name: linkinfo-data-msg
    formats:
""", """    name: linkinfo-data-msg
    formats:
      -
        value: drack
        attribute-set: linkinfo-drack-attrs
""", 1)
assert "linkinfo-drack-attrs" in s and "value: drack" in s
open(path, "w").write(s)
PY
	touch "$ksrc/.complete"
fi
echo "$ksrc"
