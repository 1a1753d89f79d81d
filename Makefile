# SPDX-License-Identifier: GPL-2.0-only
# flytrap — one Makefile for everything.  `make help` lists the targets.

O ?= build
prefix ?= /usr/local
DESTDIR ?=
CC ?= cc
CLANG ?= clang
# Ubuntu's /usr/sbin/bpftool is a wrapper that wants the running kernel's
# linux-tools; any version's binary generates skeletons.
BPFTOOL ?= $(or $(lastword $(sort $(wildcard /usr/lib/linux-tools/*/bpftool))),bpftool)
PKG_CONFIG ?= pkg-config

ifeq ($(V),1)
Q =
msg = @true
else
Q = @
msg = @printf '  %-8s %s\n' $(1) $(2);
endif

# ---- dependencies -----------------------------------------------------------
# Analysis-only build (a laptop): libtraceevent, zstd, zlib, libelf, libdw (symbols), libiberty
# (demangling, no pkg-config file), libdebuginfod (not in the static build), sqlite3 (flytrap sql),
# libcrypto (OpenSSL: redact's keyed hashing).
# Recording adds libtracefs and libbpf, plus clang and bpftool at build time.
PKGS_BASE = libtraceevent libzstd zlib libelf libdw sqlite3 libcrypto
ifneq ($(STATIC),1)
PKGS_BASE += libdebuginfod
endif
PKGS_RECORD = libtracefs libbpf
ifeq ($(NO_RECORD),1)
PKGS = $(PKGS_BASE)
else
PKGS = $(PKGS_BASE) $(PKGS_RECORD)
endif

# pkg-config name -> Debian package, for the one clear error below.
deb_libtraceevent = libtraceevent-dev
deb_libzstd = libzstd-dev
deb_zlib = zlib1g-dev
deb_libelf = libelf-dev
deb_libdw = libdw-dev
deb_libdebuginfod = libdebuginfod-dev
deb_sqlite3 = libsqlite3-dev
deb_libcrypto = libssl-dev
deb_libtracefs = libtracefs-dev
deb_libbpf = libbpf-dev

ifeq ($(filter clean help deps deps-build demo test,$(MAKECMDGOALS)),)
MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,$(p))))
ifneq ($(MISSING),)
$(error missing libraries: $(MISSING); install: apt-get install $(foreach p,$(MISSING),$(deb_$(p)))$(if $(NO_RECORD),, (or build with NO_RECORD=1 for analysis only)))
endif
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# The sql prompt's line editing and history: libedit when it is there (BSD
# licensed; GNU readline is GPLv3, which GPL-2.0-only flytrap cannot link),
# never in the static build (its terminal libraries have no archives here).
ifneq ($(STATIC),1)
ifeq ($(shell $(PKG_CONFIG) --exists libedit && echo y),y)
HAVE_LIBEDIT = 1
endif
endif
ifeq ($(STATIC),1)
# `make static`: every library from its static archive (Debian ships them in
# the -dev packages); no libtraceevent plugins (FT_STATIC, see flytrap.1)
PKG_LIBS := $(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null)
else
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
endif

WARN = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wshadow=local \
       -Wformat=2 -Wno-format-nonliteral
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifeq ($(DEBUG),1)
OPT = -O0 -g3
else
OPT = -O2 -g
endif
ifeq ($(SAN),1)
OPT += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDSAN = -fsanitize=address,undefined
endif

CFLAGS ?=
LDFLAGS ?=
ALL_CFLAGS = -std=gnu11 $(OPT) $(WARN) -D_GNU_SOURCE -I. -Iformat -I$(O)/bpf -I$(O)/gen $(PKG_CFLAGS) $(CFLAGS)
ifeq ($(NO_RECORD),1)
ALL_CFLAGS += -DFT_NO_RECORD
endif
ALL_LDFLAGS = $(LDSAN) $(LDFLAGS)
ifeq ($(STATIC),1)
ALL_CFLAGS += -DFT_STATIC
ALL_LDFLAGS += -static
endif
ifeq ($(HAVE_LIBEDIT),1)
ALL_CFLAGS += -DHAVE_LIBEDIT $(shell $(PKG_CONFIG) --cflags libedit)
PKG_LIBS += $(shell $(PKG_CONFIG) --libs libedit)
endif
LIBS = $(PKG_LIBS) -liberty -lm -lpthread

# ---- sources -----------------------------------------------------------------
FORMAT_SRC := $(filter-out format/fuzz_%.c,$(wildcard format/*.c))
REPORT_SRC := $(wildcard report/*/*.c)
RECORD_SRC := $(wildcard record/*.c)
MAIN_SRC := flytrap.c
BPF_SRC := $(wildcard bpf/*.bpf.c)

SRC := $(MAIN_SRC) $(FORMAT_SRC) $(REPORT_SRC)
ifneq ($(NO_RECORD),1)
SRC += $(RECORD_SRC)
SKELS := $(patsubst bpf/%.bpf.c,$(O)/bpf/%.skel.h,$(BPF_SRC))
endif
OBJ := $(patsubst %.c,$(O)/%.o,$(SRC))
LIB_OBJ := $(patsubst %.c,$(O)/%.o,$(FORMAT_SRC) $(REPORT_SRC)) $(O)/flytrap-util.o

# unit tests: tests/unit/test_*.c, each a program linked with format/ and report/
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRC))
# helpers used by the scripted tests (workloads, file generators)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(patsubst tests/tools/%.c,$(O)/tests/tools/%,$(TOOL_SRC))

all: $(O)/flytrap $(UNIT_BIN) $(TOOL_BIN) $(O)/fuzz_reader_replay

# Rebuild everything when the flags change.
$(O)/.flags: FORCE
	@mkdir -p $(O)
	@echo '$(ALL_CFLAGS) $(ALL_LDFLAGS) $(LIBS) $(NO_RECORD) $(VMLINUX_H)' | cmp -s - $@ || \
		echo '$(ALL_CFLAGS) $(ALL_LDFLAGS) $(LIBS) $(NO_RECORD) $(VMLINUX_H)' > $@

$(O)/%.o: %.c $(O)/.flags | $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Syscall names per architecture, generated from the kernel's UAPI headers
# (linux-libc-dev and linux-libc-dev-*-cross; report/syms/gen-syscalls.sh says how).
$(O)/gen/syscalls.h: report/syms/gen-syscalls.sh
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)
	$(Q)sh report/syms/gen-syscalls.sh $@
$(O)/report/syms/sysnames.o: $(O)/gen/syscalls.h

$(O)/flytrap: $(OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(O)/tests/%: tests/unit/%.c $(LIB_OBJ) $(O)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -MMD -MP -MF $@.d -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(LIBS)

$(O)/tests/tools/%: tests/tools/%.c $(LIB_OBJ) $(O)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(LIBS)

# The CLI helpers without main(), for unit tests.
$(O)/flytrap-util.o: flytrap.c $(O)/.flags
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -DFT_NO_MAIN -MMD -MP -MF $@.d -c $< -o $@

# ---- fuzzing -----------------------------------------------------------------
# The replay driver runs the fuzz target over tests/fuzz/corpus in make check;
# `make fuzz` builds the libFuzzer binary (clang).
FORMAT_OBJ := $(patsubst %.c,$(O)/%.o,$(FORMAT_SRC))
$(O)/fuzz_reader_replay: format/fuzz_reader.c $(FORMAT_OBJ) $(O)/.flags
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -DFUZZ_REPLAY_MAIN -o $@ $< $(FORMAT_OBJ) $(ALL_LDFLAGS) $(LIBS)

fuzz: $(O)/fuzz_reader
$(O)/fuzz_reader: format/fuzz_reader.c $(FORMAT_SRC)
	@mkdir -p $(dir $@)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. -Iformat $(PKG_CFLAGS) \
		-o $@ $^ $(PKG_LIBS) -lm

# ---- BPF ---------------------------------------------------------------------
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(O)/bpf -Ibpf -Wall -Werror

# The kernel types the programs are compiled against come from a vmlinux.h
# checked in per architecture (bpf/vmlinux/ARCH/), so that the build needs
# no BTF of its own (a container, a build server): CO-RE relocates every
# field access to the target kernel's BTF when the program loads.  Without
# one for this architecture, or with VMLINUX_H=btf, the build machine's
# /sys/kernel/btf/vmlinux is used.  `make vmlinux-h` refreshes the checked-in
# file from this machine.
VMLINUX_H ?= $(wildcard bpf/vmlinux/$(ARCH)/vmlinux.h)
ifeq ($(VMLINUX_H),btf)
VMLINUX_H :=
endif
$(O)/bpf/vmlinux.h: $(VMLINUX_H) $(O)/.flags
	@mkdir -p $(dir $@)
ifneq ($(VMLINUX_H),)
	$(call msg,CP,$@)
	$(Q)cp $(VMLINUX_H) $@.tmp && mv $@.tmp $@
else
	$(call msg,BTF,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@
endif

vmlinux-h:
	@mkdir -p bpf/vmlinux/$(ARCH)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux/$(ARCH)/vmlinux.h.tmp && \
		mv bpf/vmlinux/$(ARCH)/vmlinux.h.tmp bpf/vmlinux/$(ARCH)/vmlinux.h
	@echo "bpf/vmlinux/$(ARCH)/vmlinux.h: from $$(uname -r)'s BTF"

$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(O)/bpf/vmlinux.h
	$(call msg,BPF,$<)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name flytrap_$* > $@.tmp && mv $@.tmp $@

# ---- tests ---------------------------------------------------------------------
# The one test command (README, CI): builds, then runs every family.
check: all
	$(Q)O=$(O) ./tests/run

check-offline: all
	$(Q)O=$(O) FLYTRAP_OFFLINE=1 FLYTRAP_TEST_LIGHT=$(if $(filter 1,$(SAN)),1,$${FLYTRAP_TEST_LIGHT:-0}) \
		$(if $(filter 1,$(SAN)),TEST_TIMEOUT=$${TEST_TIMEOUT:-1200}) ./tests/run

# ---- the README's two commands -----------------------------------------------------
# Debian/Ubuntu packages: building (all the demo needs), then what the tests use.
# libtraceevent1-plugin: report prints sched_switch, kmem, ... as trace-cmd
# does only with the plugins, and libtraceevent-dev does not pull them in.
DEB_BUILD = build-essential pkg-config libtraceevent-dev libtraceevent1-plugin libtracefs-dev \
	    libbpf-dev libzstd-dev zlib1g-dev libelf-dev libdw-dev libdebuginfod-dev libiberty-dev libsqlite3-dev \
	    libedit-dev libssl-dev clang llvm bpftool $(DEB_SYSCALL_HEADERS)
# the other architectures' kernel headers, for the syscall name tables
# (report/syms/gen-syscalls.sh); this machine's come with libc6-dev
DEB_SYSCALL_HEADERS = linux-libc-dev linux-libc-dev-arm64-cross linux-libc-dev-armhf-cross \
	    linux-libc-dev-riscv64-cross linux-libc-dev-ppc64el-cross linux-libc-dev-s390x-cross
DEB_TEST = trace-cmd python3 time strace debuginfod g++ qemu-system-x86 busybox-static cpio chromium debootstrap clickhouse-server clickhouse-client
# Ubuntu: chromium is a snap there (its deb only installs snapd's stub, which
# a container or chroot cannot run), so it is left out and the browser checks
# SKIP saying so; bpftool is linux-tools-common's wrapper plus the real binary
# of a kernel's linux-tools package (any version generates skeletons).
OS_ID := $(shell . /etc/os-release 2>/dev/null && echo $$ID $$ID_LIKE)
ifneq ($(filter ubuntu,$(OS_ID)),)
DEB_BUILD := $(filter-out bpftool,$(DEB_BUILD)) linux-tools-common linux-tools-generic
DEB_TEST := $(filter-out chromium,$(DEB_TEST))
endif
# Install what is missing (apt-get, as root).  Nothing happens when all is there.
define deb_install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "flytrap: missing packages: $$missing (run as root, or: sudo apt-get install $$missing)"; exit 1; fi; \
		echo "installing:" $$missing; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $$missing >/dev/null || exit 1; \
	fi
endef
deps:
	$(call deb_install,$(DEB_BUILD) $(DEB_TEST))
# what building needs, no more (the demo's first run stays short)
deps-build:
	$(call deb_install,$(DEB_BUILD))

# Record a short trace of this machine (or, where that is impossible, use
# the shipped sample) and show what the analyzers make of it.
demo: deps-build
	@$(MAKE) --no-print-directory $(O)/flytrap
	@O=$(O) ./record/demo.sh

# The test command (README, CI): install, build, run every family.
test: deps
	@$(MAKE) --no-print-directory check

# ---- install -------------------------------------------------------------------
install: $(O)/flytrap
	install -d $(DESTDIR)$(prefix)/bin $(DESTDIR)$(prefix)/share/man/man1 \
		$(DESTDIR)$(prefix)/share/bash-completion/completions
	install -m 0755 $(O)/flytrap $(DESTDIR)$(prefix)/bin/flytrap
	for m in docs/man/*.1; do [ -e "$$m" ] && install -m 0644 $$m $(DESTDIR)$(prefix)/share/man/man1/ || true; done
	install -m 0644 pkg/flytrap.bash-completion $(DESTDIR)$(prefix)/share/bash-completion/completions/flytrap

# ---- one file for a production machine ------------------------------------------
# make static: $(O)/flytrap-static, fully static (Debian's static archives of
# every library), BPF programs embedded (the skeletons), stripped.  Built in
# $(O)/static with its own objects.
static:
	@$(MAKE) --no-print-directory O=$(O)/static STATIC=1 $(O)/static/flytrap
	$(call msg,STRIP,$(O)/flytrap-static)
	$(Q)strip -o $(O)/flytrap-static.tmp $(O)/static/flytrap && mv $(O)/flytrap-static.tmp $(O)/flytrap-static

# make deb: $(O)/flytrap_VERSION_ARCH.deb (dpkg-deb, a generated control file
# whose Depends dpkg-shlibdeps takes from the binary): the dynamic binary,
# man pages, bash completion.  pkg/mkdeb.sh says how.
VERSION := $(shell sed -n 's/^\#define FLYTRAP_VERSION "\(.*\)"/\1/p' flytrap.h)
deb: $(O)/flytrap
	$(Q)O=$(O) VERSION=$(VERSION) pkg/mkdeb.sh

clean:
	rm -rf $(O)

help:
	@echo 'flytrap build targets:'
	@echo '  make demo         install what is missing, build, record this machine, analyze'
	@echo '  make test         install what is missing, build, run every test (CI)'
	@echo '  make deps         install the Debian packages the build and tests need (root)'
	@echo '  make deps-build   install only what building needs (root; make demo uses it)'
	@echo '  make              build $(O)/flytrap, the unit tests and tools'
	@echo '  make check        build, then run every test family (tests/run)'
	@echo '  make check-offline  tests that need no root or tracefs'
	@echo '  make fuzz         libFuzzer target for the reader ($(O)/fuzz_reader)'
	@echo '  make install      install into $$(DESTDIR)$$(prefix) (default /usr/local)'
	@echo '  make static       $(O)/flytrap-static: one static binary for a production machine'
	@echo '  make deb          $(O)/flytrap_VERSION_ARCH.deb (binary, man pages, completion)'
	@echo '  make vmlinux-h    refresh bpf/vmlinux/ARCH/vmlinux.h from this machine'"'"'s BTF'
	@echo '  make clean        remove $(O)'
	@echo 'variables:'
	@echo '  O=DIR       build directory (default build)'
	@echo '  V=1         show the commands'
	@echo '  DEBUG=1     -O0 -g3'
	@echo '  SAN=1       AddressSanitizer + UndefinedBehaviorSanitizer'
	@echo '  WERROR=1    warnings are errors (CI)'
	@echo '  NO_RECORD=1 analysis-only build: no libtracefs, libbpf, clang or root needed'
	@echo '              (it needs libtraceevent, zstd, zlib, libelf, libdw, libdebuginfod,'
	@echo '              libiberty and sqlite3)'
	@echo '  VMLINUX_H=btf  compile BPF against this machine'"'"'s BTF, not bpf/vmlinux/ARCH'

.PHONY: all check check-offline fuzz install clean help deps deps-build demo test static deb vmlinux-h FORCE
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
