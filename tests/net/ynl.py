#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ynl.py KSRC FAMILY OP [JSON]: one netlink request through the kernel's
YNL library (tests/kernel-selftests.sh extracts it), a dump if OP ends in
'-dump'; prints the answer as JSON. E.g.: ynl.py $KSRC netdev qstats-dump
'{"ifindex": 3, "scope": "queue"}'."""
import json
import sys

ksrc, family, op = sys.argv[1:4]
req = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
sys.path.append(ksrc + "/tools")
from net.ynl.lib import YnlFamily  # noqa: E402

spec = f"{ksrc}/Documentation/netlink/specs/{family}.yaml"
fam = YnlFamily(spec, schema="")
dump = op.endswith("-dump")
name = op[:-len("-dump")] if dump else op
out = fam.dump(name, req) if dump else fam.do(name, req)
print(json.dumps(out, default=str))
