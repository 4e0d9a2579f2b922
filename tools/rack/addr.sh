# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The addressing of rack0, one copy for drack-rack's agent and demo and for
# the netns tests (tests/net/lib.sh sources it): host I has
# 198.18.0.(I+1)/24, 2001:db8:d7::(I+1)/64 and the MAC drack.ko derives
# from pool and host id.
#
#   ip4 I; ip6 I; host_mac I [POOL]

DRACK_NET4=198.18.0
DRACK_NET6=2001:db8:d7:

ip4() { echo "$DRACK_NET4.$(($1 + 1))"; }
ip6() { echo "$DRACK_NET6:$(($1 + 1))"; }
host_mac() { printf '02:44:52:%02x:%02x:%02x' "${2:-0}" $(($1 >> 8)) $(($1 & 255)); }
