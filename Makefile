# SPDX-License-Identifier: GPL-2.0-only
#
# make          drack.ko (against the newest installed 6.1 headers), libdrack, tools,
#               the test helpers and make bench-insns's plugin and load (bench-bin)
# make check    install test dependencies, build, run the unit tests, then
#               every other test in QEMU guests
# make unit     the unit tests alone (tests/unit, user space, no guest)
# make dkms-install  register drack.ko with DKMS (/usr/src/drack-VERSION):
#                built and installed for every installed kernel, and
#                for each kernel installed later
# make netlink-gen  regenerate the netlink code from
#                Documentation/netlink/specs/drack.yaml (tools/ynl/regen.sh)
# make demo     install dependencies, build, run an emulated rack of QEMU VMs
#                sharing one pool, apps across rack0 (tools/rack/drack-rack demo)
# make demo-netns  the same with every host in one guest (ram pool, netns)
# make bench    rack0 vs veth: iperf3 and sockperf in one guest run
# make bench-vms   rack0 vs virtio-net between two VMs
# make bench-nic   the NIC pool: one host's inter-rack throughput through
#                  the pool vs its own NIC, all-to-all fairness (2 racks x 2 VMs)
# make bench-sched  drack-fmd's NIC scheduling policies (static,
#                  round-robin, queue-depth, demand, matching) side by side: two hosts on one
#                  vNIC, a busy NIC owner, a short flow under a long one
#                  (2 racks x 2 VMs)
# make bench-failover  NIC-pool failover time, a hung owner and a link down,
#                  20 trials each, timed on the wire (tests/net/failover.sh)
# make bench-insns  guest instructions per 64 B round trip and per MB of a
#                  TCP stream, rack0 vs veth, counted by QEMU (TCG plugin
#                  tests/bench/insn-prof.c): exact, whatever the host's load
# make eval     DRack's application evaluation on the lab racks (2 racks x 2
#               VMs): Redis hot-key incast, Gloo ring all-reduce and parameter
#               server, ToR vs drack over theta, intra-rack tcp-rr, CXL latency;
#               tables and plots in .eval-results/ (Documentation/evaluation.rst)
# make deb      the Debian packages (debian/) with dpkg-buildpackage -us -uc -b,
#               built in a scratch copy of this tree: .build-deb/*.deb
# make deb-check  make deb, install them (in a private mount namespace) and
#               run racks from the installed paths only: two hosts in a
#               guest, drack-rack's two VMs (tests/pkg/packages.sh)

KVER ?= $(shell ls -1 /lib/modules 2>/dev/null | grep '^6\.1\.' | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
KVER612 ?= $(shell ls -1d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n 1)

CC ?= cc
CFLAGS ?= -O2 -g
USER_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -I$(CURDIR)/kmod -I$(CURDIR)/lib/include

export CC CFLAGS USER_CFLAGS

.PHONY: all kmod lib tools tests-bin bench-bin unit netlink-gen dkms-install check check-612 check-debug demo demo-netns bench bench-vms bench-nic bench-sched bench-failover bench-stages bench-insns eval clean install deb deb-check

all: kmod lib tools tests-bin bench-bin

kmod:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

# Compile-only check against the Debian 6.12 headers, in a scratch copy so
# the 6.1 objects stay put.
check-612:
	@test -n "$(KVER612)" || { echo "no 6.12 headers installed" >&2; exit 1; }
	rm -rf .build-612 && mkdir -p .build-612 && cp -r Kbuild kmod .build-612/
	$(MAKE) -C $(KVER612) M=$(CURDIR)/.build-612 W=1 modules

lib:
	$(MAKE) -C lib

tools: lib
	$(MAKE) -C tools

tests-bin: lib
	$(MAKE) -C tests
	$(MAKE) -C tests/unit

unit:
	$(MAKE) -C tests/unit run

# make bench-insns's QEMU plugin and load, built with everything so that a
# change that breaks them fails the build step of make check.
BENCH_BIN := tests/bench/insn-prof.so tests/bench/insn-load
bench-bin: $(BENCH_BIN)

tests/bench/insn-prof.so: tests/bench/insn-prof.c
	$(CC) -O2 -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o $@ $<

tests/bench/insn-load: tests/bench/insn-load.c
	$(CC) -O2 -std=gnu11 -Wall -Wextra -Werror -o $@ $<

netlink-gen:
	bash tools/ynl/regen.sh

DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC := /usr/src/drack-$(DKMS_VERSION)
dkms-install:
	rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)/kmod
	cp Kbuild dkms.conf $(DKMS_SRC)/
	cd kmod && git ls-files | tar -cf - -T - | tar -xf - -C $(DKMS_SRC)/kmod
	dkms add drack/$(DKMS_VERSION)
	for k in $$(ls /lib/modules); do \
		[ -e /lib/modules/$$k/build ] || continue; \
		dkms install drack/$(DKMS_VERSION) -k $$k || exit 1; \
	done

# make check KVER=6.12.x: the whole suite on another installed kernel.
check:
	DRACK_KVER=$(KVER) bash tests/run-all.sh

# The guest suite on a KASAN/lockdep/UBSAN/kmemleak 6.1 kernel built once
# into ~/.cache/drack (tests/debug-kernel.sh); not part of check: slow.
# make check-debug T='hostile basic' runs only those tests.
check-debug:
	bash tests/debug-kernel.sh $(T)

demo:
	bash tests/install-deps.sh
	$(MAKE) -s all
	tools/rack/drack-rack demo

demo-netns:
	bash tests/install-deps.sh
	bash tools/rack/rack-demo.sh

bench:
	bash tests/bench/bench.sh

bench-vms:
	bash tests/bench/vm-bench.sh

bench-nic:
	bash tests/bench/nic-bench.sh

bench-sched:
	bash tests/bench/sched-bench.sh

bench-failover:
	bash tests/bench/failover-bench.sh

eval:
	bash tests/eval/eval.sh

bench-stages:
	bash tests/bench/bench.sh stages

bench-insns:
	bash tests/bench/insns.sh

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	$(MAKE) -C lib install
	$(MAKE) -C tools install

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C lib clean
	-$(MAKE) -C tools clean
	-$(MAKE) -C tests clean
	-$(MAKE) -C tests/unit clean
	-$(MAKE) -C tests/eval clean
	rm -rf .build-612 $(BENCH_BIN)

# The packages are built from a copy of the tracked and new (not ignored)
# files: dpkg-buildpackage cleans the tree it builds in, this one keeps its
# build. The copy's .gitignore hides the directory from git. Nothing of this
# make's exported flags (USER_CFLAGS names this tree's headers) reaches it.
DEB_DIR := $(CURDIR)/.build-deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	echo '*' >$(DEB_DIR)/.gitignore
	git ls-files -z --cached --others --exclude-standard | \
		tar --null --ignore-failed-read -cf - -T - | tar -xf - -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && env -u CC -u CFLAGS -u USER_CFLAGS -u MAKEFLAGS -u MAKELEVEL \
		dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_DIR)/src
	@ls -1 $(DEB_DIR)/*.deb

deb-check:
	bash tests/install-deps.sh
	bash tests/pkg/packages.sh
