#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# pool_delay: the CXL latency emulation parameter (kmod/cxl_delay.c,
# Documentation/evaluation.rst). pool_delay_ns is 0 by default, takes
# 0-1000 at run time, refuses anything else and then keeps its value, and
# rack0 carries traffic at the largest delay.
#
#   h0 rack0 198.18.0.1 --+-- pool 0 (ram) -- drack-fmd
#   h1 rack0 198.18.0.2 --+
#
# What breaks it: a default other than 0 (default_zero), a value in range
# refused (set_max), a value above 1000 or not a number taken or changing
# the value (refuse_above, refuse_garbage), the delay hook breaking the
# receive or transmit path (ping_delayed), leaks or warnings (dmesg_clean).
. "$(dirname "$0")/lib.sh"

ktap_plan 10

P=/sys/module/drack/parameters/pool_delay_ns

drack_setup 2 || ktap_finish

# is VALUE: pool_delay_ns reads VALUE
is() { [[ $(cat $P) == "$1" ]] || { echo "pool_delay_ns = $(cat $P), expected $1"; return 1; }; }
set_to() { echo "$1" >$P && is "$1"; }

ktap_check default_zero is 0
ktap_check set_max set_to 1000

# refused VALUE: the write fails and pool_delay_ns is still 1000
refused() {
	if (echo "$1" >"$P") 2>/dev/null; then
		echo "pool_delay_ns took '$1' (now $(cat $P))"
		return 1
	fi
	[[ $(cat $P) == 1000 ]] || { echo "a refused '$1' changed pool_delay_ns to $(cat $P)"; return 1; }
}
ktap_check refuse_above refused 1001
ktap_check refuse_garbage refused 12abc
ktap_check ping_delayed ping_ok h1 198.18.0.1
ktap_check reset_zero set_to 0

drack_finish
