#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ktap-summary.sh < KTAP: pass KTAP/TAP output through unchanged, then print
# "N passed, N failed[, N skipped]". Counts only top-level (unindented) result
# lines of each script; planned results that never came count as failed.
# Exit 1 on any failure or when no test reported at all.
set -euo pipefail

pass=0 fail=0 skip=0 plan=0 seen=0

# End of one script's output: a short plan means it died part-way.
close_script() {
	if ((plan > seen)); then
		echo "# ktap-summary: $((plan - seen)) planned result(s) missing"
		fail=$((fail + plan - seen))
	fi
	plan=0 seen=0
}

is_skip() { [[ $1 =~ \#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; }

while IFS= read -r line || [[ -n $line ]]; do
	printf '%s\n' "$line"
	l=${line%$'\r'}
	case $l in
	"TAP version "* | "KTAP version "*) close_script ;;
	1..*)
		n=${l#1..} n=${n%%[!0-9]*}
		if ((n == 0)); then # "1..0 # SKIP": the whole script skipped
			close_script; skip=$((skip + 1)); continue
		fi
		if ((seen && !plan)); then # plan at the end of a script
			plan=$n; close_script
		else
			close_script; plan=$n
		fi
		;;
	"ok "* | "ok")
		seen=$((seen + 1))
		if is_skip "$l"; then skip=$((skip + 1)); else pass=$((pass + 1)); fi
		;;
	"not ok "* | "not ok")
		seen=$((seen + 1))
		if is_skip "$l"; then skip=$((skip + 1)); else fail=$((fail + 1)); fi
		;;
	"Bail out!"*) fail=$((fail + 1)) ;;
	esac
done
close_script

summary="$pass passed, $fail failed"
((skip == 0)) || summary+=", $skip skipped"
echo "$summary"
((fail == 0 && pass + skip > 0))
