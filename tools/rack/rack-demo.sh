#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo-netns (which first runs tests/install-deps.sh): build, boot a
# QEMU guest and run an emulated rack in it: four hosts (network namespaces) on one ram pool,
# drack-fmd granting Sections, unmodified apps talking over rack0.
set -euo pipefail
cd "$(dirname "$0")/../.."

make -s all
echo "demo: booting a guest (QEMU, about 10 s) ..."
exec tools/rack/run-guest.sh --timeout 600 --name drack-demo -- \
	bash tools/rack/rack-demo-guest.sh
