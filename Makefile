# sr - rootless sandbox toolkit.
#   make            build every tool (installs missing Debian packages first)
#   make demo       build, then run a real command through the tools
#   make demo-app   sr-mcp's MCP App in a browser, on 127.0.0.1:8765
#   make check      build and run the whole test suite through prove
#   make bench      measure sr against bwrap and bare exec
#   make fuzz       run the libFuzzer targets (FUZZ_SECONDS=60 each)
#   make install PREFIX=/usr/local DESTDIR=
#   make install-env  the Debian packages of sr-mcp's default environment
#
# Which tool links what:
#   sr-limit, sr-jail   lib/ only; static-pie against musl (LIBC=glibc: glibc)
#   sr-exec             lib/ (its JSON reader too), libseccomp; static-pie
#                       against musl and libseccomp.a (LIBC=glibc: dynamic,
#                       libseccomp.so); embeds its default filter, compiled
#                       at build time by a first build of itself
#   sr-net              lib/ only; static-pie against musl (LIBC=glibc:
#                       dynamic, glibc's resolver); sr-net-tls, the same
#                       with its TLS half: OpenSSL (dynamic, glibc)
#   sr-queue, sr-mcp    lib/, cJSON (dynamic, glibc)
# Builds with SAN= link every tool dynamically with the sanitizer runtimes.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/sr
# systemd's directory of user units under the prefix (sr-mcp-http.service):
# PREFIX/lib/systemd/user (/usr/local/lib/systemd/user serves every user),
# but for a user's own install (PREFIX=$HOME/.local) the one systemd reads
# that user's units from, ~/.local/share/systemd/user (tests/91-install-user.t)
USERUNITDIR ?= $(if $(filter $(HOME)/.local $(HOME)/.local/,$(PREFIX)),$(PREFIX:/=)/share,$(PREFIX)/lib)/systemd/user
DESTDIR ?=

CC      ?= cc
SAN     ?=
PKGS    := libseccomp libcjson

HARDEN  := -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2
CFLAGS  ?= -g
LDFLAGS ?=
ifneq ($(SAN),)
SANFLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lseccomp -lcjson)
ALL_CFLAGS  = -std=c11 -D_GNU_SOURCE $(HARDEN) $(WARN) $(SANFLAGS) $(CFLAGS) \
	      -Ilib $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS = -pie -Wl,-z,relro,-z,now -Wl,--as-needed $(SANFLAGS) $(LDFLAGS)

# Every directory sr-NAME holding a main.c is a tool whose program is
# sr-NAME/sr-NAME, built from all the .c files in that directory.
TOOLS    := $(patsubst %/main.c,%,$(wildcard sr-*/main.c))
# and sr-net's TLS half (below): sr-net-tls, the same program with OpenSSL.
PROGS    := $(foreach t,$(TOOLS),$(t)/$(t)) sr-net/sr-net-tls
LIB_SRC  := $(filter-out lib/musl-%,$(wildcard lib/*.c))
LIB_OBJ  := $(LIB_SRC:.c=.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNITS    := $(UNIT_SRC:.c=)
MANS     := $(wildcard man/*.1)
DATA     := $(wildcard sr-*/data/*)
# sr-mcp's runners: the executable files; what a runner reads from a
# directory beside it (python-lib/, node-lib/) is data.
RUNNER_DIRS := $(patsubst %/,%,$(wildcard sr-mcp/runners/*/))
RUNNERS     := $(filter-out $(RUNNER_DIRS),$(wildcard sr-mcp/runners/*))
RUNNER_LIBS := $(wildcard $(addsuffix /*.py,$(RUNNER_DIRS)) $(addsuffix /*.js,$(RUNNER_DIRS)) \
		$(addsuffix /*.mjs,$(RUNNER_DIRS)) $(addsuffix /*.d.ts,$(RUNNER_DIRS)))
# sr-mcp-http (Node, no build): installed in DATADIR/sr-mcp/http, linked
# from BINDIR; paths.json tells it where sr-mcp went.
HTTP_FILES  := sr-mcp/http/sr-mcp-http $(wildcard sr-mcp/http/*.js)
OBJS      = $(LIB_OBJ) $(foreach t,$(TOOLS),$(patsubst %.c,%.o,$(wildcard $(t)/*.c)))

.PHONY: all deps check-deps demo demo-mcp demo-app check check-vm check-slurm bench lint install uninstall clean install-env check-rootfs
.PHONY: install-apparmor uninstall-apparmor
all: .deps-build $(PROGS)

# Missing Debian packages are installed by the build itself (see scripts/deps.sh).
.deps-build: scripts/deps.sh
	@LIBC='$(or $(static_libc),glibc)' sh scripts/deps.sh build
	@touch $@
deps: .deps-build
check-deps: .deps-build
	@LIBC='$(or $(static_libc),glibc)' sh scripts/deps.sh check
	@sh scripts/node-types.sh

# Rebuild everything when the flags change (e.g. SAN=address,undefined).
.build-flags: FORCE | .deps-build
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) static:$(static_libc)' | cmp -s - $@ || \
	  echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) static:$(static_libc)' > $@
FORCE:

%.o: %.c .build-flags | .deps-build
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

lib/libsr.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

# sr-limit, sr-jail and sr-exec are on every sandbox's path (sr-net on
# that of every run with a network policy), so they start as fast as a
# program can: linked statically (no dynamic loader)
# against musl (musl-tools). glibc probes the CPU at every start with
# dozens of cpuid instructions, and on a virtual machine each one traps
# to the hypervisor: a static glibc program takes 0.4 ms to start here, a
# musl one 0.1 ms. None of them uses cJSON (lib/jw.c writes JSON, lib/jr.c
# reads sr-exec's profiles). sr-exec links Debian's libseccomp.a, which
# is built against glibc: it calls nothing musl lacks but __fprintf_chk
# (lib/musl-compat.c), and the build refuses an archive that reaches into
# glibc's FILE (see SECCOMP_A). LIBC=glibc links sr-limit and sr-jail
# static-pie against glibc and sr-exec dynamically, with libseccomp.so;
# sanitizer builds link them like the others (the runtimes are shared).
STATIC_TOOLS := sr-limit sr-jail sr-exec sr-net
STATIC_GLIBC := sr-limit sr-jail
LIBC    ?= musl
MUSL_CC ?= musl-gcc
ifneq ($(SAN),)
static_libc :=
else
static_libc := $(LIBC)
endif
ifneq ($(filter-out musl glibc,$(LIBC))$(word 2,$(LIBC)),)
$(error LIBC must be musl or glibc, not '$(LIBC)')
endif

# musl's headers come without the kernel's: .musl/include links to them.
# musl-gcc's specs know no -static-pie: the link names musl's
# self-relocating start file (rcrt1.o) and the linker flags itself.
MULTIARCH   = $(shell $(CC) -print-multiarch 2>/dev/null)
MUSL_LIBDIR = /usr/lib/$(subst -gnu,-musl,$(MULTIARCH))
MUSL_LINK   = $(MUSL_CC) $(LDFLAGS) -nostartfiles -Wl,-static,-pie,--no-dynamic-linker \
	      -Wl,-z,text,-z,relro,-z,now $(MUSL_LIBDIR)/rcrt1.o $(MUSL_LIBDIR)/crti.o \
	      $(shell $(CC) -print-file-name=crtbeginS.o)
MUSL_LINK_END = $(shell $(CC) -print-file-name=crtendS.o) $(MUSL_LIBDIR)/crtn.o
MUSL_CFLAGS = $(filter-out $(PKG_CFLAGS),$(ALL_CFLAGS)) -isystem .musl/include \
	      -include lib/musl-compat.h
MUSL_LIB    := $(LIB_SRC)
# The kernel's headers and libseccomp's (for sr-exec).
MUSL_HDRS := linux asm-generic seccomp.h seccomp-syscalls.h
$(addprefix .musl/include/,$(MUSL_HDRS)): | .deps-build
	@mkdir -p $(dir $@)
	ln -sfn /usr/include/$(notdir $@) $@
.musl/include/asm: | .deps-build
	@mkdir -p $(dir $@)
	ln -sfn /usr/include/$(MULTIARCH)/asm $@
.musl/include/.stamp: $(addprefix .musl/include/,asm $(MUSL_HDRS)) | .deps-build
	@LIBC=musl sh scripts/deps.sh build
	@touch $@
.musl/%.o: %.c lib/musl-compat.h .build-flags .musl/include/.stamp
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(MUSL_CFLAGS) -c -o $@ $<
.musl/libsr.a: $(patsubst %.c,.musl/%.o,$(MUSL_LIB))
	$(AR) rcs $@ $^

# libseccomp.a for the musl sr-exec. It was compiled against glibc's
# headers: a call musl lacks fails the link, but glibc's stdio macros
# (putc, getc) inline their fast path into the caller, which reads and
# writes glibc's FILE and calls __overflow or __uflow for the slow one:
# musl has functions of those names for a FILE of its own, so such an
# archive would link and corrupt memory. The check below refuses it.
SECCOMP_A ?= $(or $(shell pkg-config --variable=libdir libseccomp 2>/dev/null),\
	       /usr/lib/$(MULTIARCH))/libseccomp.a
.musl/libseccomp.a: $(SECCOMP_A) | .deps-build
	@mkdir -p $(dir $@)
	@bad=$$(nm -u $< | awk '$$2 ~ /^(_IO_|__overflow$$|__uflow$$)/ { print $$2 }' | sort -u); \
	if [ -n "$$bad" ]; then \
	  echo "sr: fatal: $< reaches into glibc's stdio ($$(echo $$bad)): it cannot be linked with musl; build with make LIBC=glibc" >&2; \
	  exit 111; \
	fi
	cp $< $@
$(SECCOMP_A): | .deps-build
# What a tool links besides lib/ when it is built against musl.
MUSL_EXTRA_sr-exec := .musl/lib/musl-compat.o .musl/libseccomp.a

# How each tool is linked: $(1) is its name.
is_static = $(if $(static_libc),$(filter $(1),$(if $(filter musl,$(static_libc)),\
	$(STATIC_TOOLS),$(STATIC_GLIBC))))
tool_objs = $(if $(call tool_musl,$(1)),\
	$(patsubst %.c,.musl/%.o,$(filter-out $(NOT_$(1)),$(wildcard $(1)/*.c))) .musl/libsr.a $(MUSL_EXTRA_$(1)),\
	$(patsubst %.c,%.o,$(filter-out $(NOT_$(1)),$(wildcard $(1)/*.c))) lib/libsr.a)
tool_musl = $(and $(call is_static,$(1)),$(filter musl,$(static_libc)))
tool_link = $(if $(call tool_musl,$(1)),$(MUSL_LINK),\
	$(CC) $(ALL_LDFLAGS) $(if $(call is_static,$(1)),-static-pie))
tool_libs = $(if $(call tool_musl,$(1)),$(MUSL_LINK_END),$(if $(call is_static,$(1)),,$(PKG_LIBS))) \
	$(LIBS_$(1))
# sr-net alone ends TLS (for the hosts that have a secret): OpenSSL. Its
# TLS files (the per-run CA, the MITM path) are left out of sr-net itself,
# which then neither loads libssl nor libcrypto (about 1 ms of each start
# on the bench's host); a --secret makes it exec sr-net-tls, the whole
# program, built beside it (HACKING.md, sr-net).
NOT_sr-net := sr-net/ca.c $(wildcard sr-net/mitm*.c)
sr-net/sr-net-tls: $(patsubst %.c,%.o,$(wildcard sr-net/*.c)) lib/libsr.a .build-flags
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) $(PKG_LIBS) -lssl -lcrypto

define tool_rule
$(1)/$(1): $(call tool_objs,$(1)) .build-flags
	$$(call tool_link,$(1)) -o $$@ $$(filter %.o %.a,$$^) $$(call tool_libs,$(1))
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# sr-exec embeds the default profile's BPF, compiled at build time by a
# first build of itself (see sr-exec/builtin.c), linked as sr-exec is:
# the same libc, the same libseccomp.
SX_DIR      := $(if $(call tool_musl,sr-exec),.musl/)sr-exec
SX_GEN_OBJS := $(SX_DIR)/builtin-none.o \
	       $(filter-out $(SX_DIR)/builtin.o,$(call tool_objs,sr-exec))
sr-exec/builtin-none.o: sr-exec/builtin.c .build-flags | .deps-build
	$(CC) $(ALL_CFLAGS) -DSX_NO_BUILTIN -c -o $@ $<
.musl/sr-exec/builtin-none.o: sr-exec/builtin.c lib/musl-compat.h .build-flags .musl/include/.stamp
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(MUSL_CFLAGS) -DSX_NO_BUILTIN -c -o $@ $<
sr-exec/sr-exec-gen: $(SX_GEN_OBJS) .build-flags
	$(call tool_link,sr-exec) -o $@ $(filter %.o %.a,$^) $(call tool_libs,sr-exec)
sr-exec/default.bpf: sr-exec/sr-exec-gen
	sr-exec/sr-exec-gen --save-bpf $@
sr-exec/default-net.bpf: sr-exec/sr-exec-gen
	sr-exec/sr-exec-gen --net --save-bpf $@
sr-exec/builtin.inc: sr-exec/default.bpf sr-exec/default-net.bpf sr-exec/bpf2c.sh
	sh sr-exec/bpf2c.sh builtin_default sr-exec/default.bpf \
	  builtin_default_net sr-exec/default-net.bpf > $@.tmp && mv $@.tmp $@
sr-exec/builtin.o .musl/sr-exec/builtin.o: sr-exec/builtin.inc

# sr-mcp finds its runners at ../share/sr/sr-mcp/runners from its own
# directory when installed, beside it in a build tree, else here; it
# reaches its jobs (submit, wait, status, cancel, list) through sr-queue's
# spool core, linked in whole: every sr-queue/spool*.c (the "core" layer of
# scripts/layers.conf).
sr-mcp/main.o: ALL_CFLAGS += -DSR_DATADIR='"$(DATADIR)"'
sr-mcp/%.o: ALL_CFLAGS += -Isr-queue
SQ_CORE_SRC := $(wildcard sr-queue/spool*.c)
SQ_CORE := $(SQ_CORE_SRC:.c=.o)
sr-mcp/sr-mcp: $(SQ_CORE)
# sr-mcp's MCP App, ui://sr/run.html: one self-contained page, compiled in
# (tool_app.c includes its bytes); the build refuses it over 100 kB.
sr-mcp/tool_app.o: sr-mcp/app_html.inc
sr-mcp/app_html.inc: sr-mcp/app/run.html scripts/embed.sh
	sh scripts/embed.sh sr-mcp/app/run.html 100000 > $@.tmp && mv $@.tmp $@
# sr-mcp's tools: a schema each, sr-mcp/tools/NAME.json, compiled in
# (tools.c includes their bytes), and the table of them (tool.h includes
# it), both made by scripts/tools.sh; the table is rewritten only when it
# changes, so that editing a schema rebuilds tools.o alone
# (the directories too: a schema removed changes them).
TOOL_JSON := $(wildcard sr-mcp/tools/*.json sr-mcp/tools/parts/*.json) sr-mcp/tools/. sr-mcp/tools/parts/.
sr-mcp/tool_json.inc: $(TOOL_JSON) scripts/tools.sh scripts/embed.sh
	sh scripts/tools.sh json sr-mcp/tools > $@.tmp && mv $@.tmp $@
sr-mcp/tool_table.inc: sr-mcp/.tool_table.stamp
	@test -f $@ || { rm -f $<; $(MAKE) --no-print-directory $<; }
sr-mcp/.tool_table.stamp: $(TOOL_JSON) scripts/tools.sh
	sh scripts/tools.sh table sr-mcp/tools > sr-mcp/tool_table.inc.tmp && \
	  { cmp -s sr-mcp/tool_table.inc.tmp sr-mcp/tool_table.inc && \
	    rm sr-mcp/tool_table.inc.tmp || mv sr-mcp/tool_table.inc.tmp sr-mcp/tool_table.inc; } && \
	  touch $@
sr-mcp/tools.o: sr-mcp/tool_json.inc
$(patsubst %.c,%.o,$(wildcard sr-mcp/*.c)): | sr-mcp/tool_table.inc

tests/unit/%: tests/unit/%.o lib/libsr.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

demo: all
	@sh tests/demo.sh

# docs/mcp.md's worked example: an MCP session with the sr-mcp just built,
# sr-mcp's default environment installed first (scripts/deps.sh env).
# Started as root, it runs as the unprivileged account, as check does.
demo-mcp: all
	@bash scripts/demo-mcp.sh

# sr-mcp's MCP App in a browser: a small host on 127.0.0.1:$(PORT) that
# runs run_code on the sr-mcp just built, its app beside it (Ctrl-C stops it).
PORT ?= 8765
demo-app: all
	@PORT='$(PORT)' bash scripts/demo-app.sh

check: all check-deps $(UNITS) tests/mcp/node_modules/.package-lock.json \
  tests/conformance/node_modules/.package-lock.json tests/app/node_modules/.package-lock.json \
  check-rootfs
	@SAN='$(SAN)' TESTS='$(TESTS)' bash tests/run

# The small Debian root file system the --rootfs and --environment tests
# run code in: built once with mmdebstrap into .cache/rootfs (about five
# minutes, most of it downloading; as root, or as a user with subordinate
# ids); where it cannot be, those tests skip and say why.
check-rootfs: | check-deps
	@sh scripts/rootfs.sh .cache/rootfs

# The same suite in a VM (as root): Debian 12's kernel under KVM, cgroup v2
# alone, a subtree delegated to the test account (scripts/vm/run.sh). The
# tree is built here; the guest sees it through this machine's root.
check-vm: all check-deps $(UNITS) tests/mcp/node_modules/.package-lock.json fuzz-regress
	@SAN='$(SAN)' TESTS='$(TESTS)' PROVE_FLAGS='$(PROVE_FLAGS)' bash scripts/vm/run.sh

# sr jobs on a one-node Slurm cluster on loopback, started (as root) and
# stopped by the script; it installs slurm-wlm and munge when missing, and
# skips, saying why, when it cannot. Not part of check.
check-slurm: all
	@bash tests/slurm/run.sh

# The official MCP clients that drive sr-mcp in the tests, pinned by
# tests/mcp/package-lock.json. Offline, the tests that need them skip and
# say so; under CI a failed install fails the check.
tests/mcp/node_modules/.package-lock.json: tests/mcp/package-lock.json | check-deps
	@cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error || \
	  { echo "sr: warning: npm ci failed in tests/mcp: the MCP client tests will skip" >&2; \
	    [ "$${CI:-}" != true ]; }

# The official MCP conformance suite, the gateway in front of sr-mcp and
# the Node 22 they run on, pinned by tests/conformance/package-lock.json
# (tests/96-mcp-conformance.t). Offline the test skips and says so; under CI
# a failed install fails the check.
tests/conformance/node_modules/.package-lock.json: tests/conformance/package-lock.json | check-deps
	@cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error || \
	  { echo "sr: warning: npm ci failed in tests/conformance: the conformance test will skip" >&2; \
	    [ "$${CI:-}" != true ]; }

# The browser library that drives Debian's chromium in tests/97-mcp-app.t,
# pinned by tests/app/package-lock.json (playwright-core: no browser is
# downloaded). Offline the browser part skips and says so; under CI a
# failed install fails the check.
tests/app/node_modules/.package-lock.json: tests/app/package-lock.json | check-deps
	@cd tests/app && npm ci --no-audit --no-fund --loglevel=error || \
	  { echo "sr: warning: npm ci failed in tests/app: the MCP App's browser test will skip" >&2; \
	    [ "$${CI:-}" != true ]; }

bench: all
	@bash bench/run

lint:
	@mandoc -Tlint -Wstyle $(MANS) 2>&1 | grep -v -e 'referenced manual not found' -e 'mandoc.db'; \
	  ! mandoc -Tlint -Wstyle $(MANS) 2>&1 | grep -v -e 'referenced manual not found' -e 'mandoc.db' | grep -q .

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(DATADIR)/sr-mcp/runners/install
	install -m 0755 $(RUNNERS) $(DESTDIR)$(DATADIR)/sr-mcp/runners/
	install -m 0755 scripts/oci-unpack $(DESTDIR)$(DATADIR)/sr-mcp/oci-unpack
	install -m 0755 sr-mcp/runners/install/* $(DESTDIR)$(DATADIR)/sr-mcp/runners/install/
	@for f in $(RUNNER_LIBS); do \
	  d=$(DESTDIR)$(DATADIR)/$$(dirname $$f); \
	  install -d $$d && install -m 0644 $$f $$d/ || exit 1; \
	done
	@for f in $(DATA); do \
	  d=$(DESTDIR)$(DATADIR)/$$(basename $$(dirname $$(dirname $$f))); \
	  install -d $$d && install -m 0644 $$f $$d/ || exit 1; \
	done
	install -d $(DESTDIR)$(DATADIR)/sr-mcp/http $(DESTDIR)$(USERUNITDIR)
	install -m 0644 $(HTTP_FILES) $(DESTDIR)$(DATADIR)/sr-mcp/http/
	chmod 0755 $(DESTDIR)$(DATADIR)/sr-mcp/http/sr-mcp-http
	printf '{ "srMcp": "%s" }\n' '$(BINDIR)/sr-mcp' >$(DESTDIR)$(DATADIR)/sr-mcp/http/paths.json
	ln -sf $(DATADIR)/sr-mcp/http/sr-mcp-http $(DESTDIR)$(BINDIR)/sr-mcp-http
	sed 's|@BINDIR@|$(BINDIR)|g' sr-mcp/http/sr-mcp-http.service >$(DESTDIR)$(USERUNITDIR)/sr-mcp-http.service

# The environment sr-mcp's runs get by default: Python's scientific stack
# from Debian (scripts/deps.sh env), as root or with sudo, and Node.js's
# types for the typescript runner (scripts/node-types.sh: npm, pinned).
install-env:
	@sh scripts/deps.sh env
	@sh scripts/node-types.sh

# The AppArmor profile that lets the installed sr-jail create user
# namespaces where AppArmor restricts them (Ubuntu 23.10 and later, like
# the profile Ubuntu ships for bwrap): /etc/apparmor.d/sr-jail, loaded
# with apparmor_parser -r (apparmor/install.sh). As root, after install.
install-apparmor:
	@sh apparmor/install.sh install '$(BINDIR)' '$(DESTDIR)'
uninstall-apparmor:
	@sh apparmor/install.sh uninstall '$(BINDIR)' '$(DESTDIR)'

# Only what install put there, file by file, then the directories it made
# if they are empty: DATADIR may be a directory of the user's (/usr/share).
INSTALLED_DATA = $(foreach r,$(RUNNERS) $(wildcard sr-mcp/runners/install/*) $(RUNNER_LIBS),$(r)) \
	$(HTTP_FILES) sr-mcp/http/paths.json sr-mcp/oci-unpack \
	$(foreach f,$(DATA),$(notdir $(patsubst %/data,%,$(patsubst %/,%,$(dir $(f)))))/$(notdir $(f)))
uninstall:
	rm -f $(foreach p,$(PROGS),$(DESTDIR)$(BINDIR)/$(notdir $(p)))
	rm -f $(foreach m,$(MANS),$(DESTDIR)$(MANDIR)/man1/$(notdir $(m)))
	rm -f $(foreach f,$(INSTALLED_DATA),$(DESTDIR)$(DATADIR)/$(f))
	rm -f $(DESTDIR)$(BINDIR)/sr-mcp-http $(DESTDIR)$(USERUNITDIR)/sr-mcp-http.service
	-@rmdir "$(DESTDIR)$(USERUNITDIR)" "$(DESTDIR)$(USERUNITDIR)/.." 2>/dev/null; true
	-@for d in $(sort $(dir $(INSTALLED_DATA))) sr-mcp/runners/ sr-mcp/ ""; do \
	  rmdir --ignore-fail-on-non-empty "$(DESTDIR)$(DATADIR)/$$d" 2>/dev/null; done; true

clean:
	rm -f $(OBJS) $(OBJS:.o=.d) $(PROGS) lib/libsr.a $(UNITS) sr-exec/sr-exec-gen \
	      sr-exec/builtin-none.[od] sr-exec/builtin.inc sr-exec/*.bpf \
	      $(UNIT_SRC:.c=.o) $(UNIT_SRC:.c=.d) .build-flags sr-mcp/app_html.inc \
	      sr-mcp/tool_json.inc sr-mcp/tool_table.inc sr-mcp/.tool_table.stamp
	rm -rf .musl

-include $(OBJS:.o=.d) $(UNIT_SRC:.c=.d) $(wildcard .musl/*/*.d)

# Fuzzing: libFuzzer targets in fuzz/, one per parser of outside input.
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS='parse json oci job mcp']
# builds each with clang -fsanitize=fuzzer,address,undefined under
# fuzz/out/ and runs it for FUZZ_SECONDS from its corpus (fuzz/corpus/T,
# plus what earlier runs found in fuzz/out/corpus/T); a crash fails the
# run and leaves its input in fuzz/out/. make check runs the same targets
# once over fuzz/corpus and fuzz/regress, built with $(CC) and a plain
# main (fuzz/driver.c): tests/12-fuzz-regress.t.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=
FUZZ_TARGETS ?= parse json oci job mcp
FUZZ_ALL     := parse json oci job mcp
FUZZ_LIB     := $(filter-out lib/err.c,$(LIB_SRC)) fuzz/stub_err.c
FUZZ_SRC_parse := fuzz/fuzz_parse.c
FUZZ_SRC_json  := fuzz/fuzz_json.c
FUZZ_SRC_oci   := fuzz/fuzz_oci.c sr-exec/oci.c sr-exec/oci_cond.c sr-exec/rules.c \
		  sr-exec/sysnames.c
FUZZ_SRC_job   := fuzz/fuzz_job.c sr-queue/spool_job.c sr-queue/spool.c
FUZZ_SRC_mcp   := fuzz/fuzz_mcp.c fuzz/mcp_stub.c $(SQ_CORE_SRC) \
		  $(filter-out sr-mcp/main.c sr-mcp/spawn.c,$(wildcard sr-mcp/*.c))
FUZZ_LINK_oci  := -Wl,--wrap=sr_read_file,--wrap=sr_jr_parse,--wrap=sr_jr_free
FUZZ_SANFLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all \
		  -fno-omit-frame-pointer
FUZZ_CFLAGS  = -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Ilib -Isr-exec -Isr-queue \
	       -Isr-mcp -Ifuzz $(PKG_CFLAGS) -MMD -MP
FUZZ_OUT     := fuzz/out
fuzz_objs = $(patsubst %.c,$(FUZZ_OUT)/$(2)/%.o,$(FUZZ_SRC_$(1)) $(FUZZ_LIB))

# clang and its runtimes (libFuzzer, ASan, UBSan): installed like
# scripts/deps.sh installs the build's packages, only for make fuzz.
FUZZ_PKGS ?= clang libclang-rt-dev
$(FUZZ_OUT)/.deps-fuzz: | .deps-build
	@missing=; for p in $(FUZZ_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q ' installed$$' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; \
	  elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "sr: fatal: make fuzz needs:$$missing; ask an administrator to run: apt-get install$$missing" >&2; exit 111; fi; \
	  echo "sr: installing missing Debian packages:$$missing"; \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing >/dev/null || \
	  { $$SUDO apt-get update -q >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing >/dev/null; } || \
	  { echo "sr: fatal: apt-get could not install:$$missing" >&2; exit 111; }; \
	fi
	@mkdir -p $(dir $@) && touch $@

$(FUZZ_OUT)/fz/%.o: %.c | $(FUZZ_OUT)/.deps-fuzz sr-mcp/tool_table.inc
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SANFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
# The regression drivers carry ASan and UBSan whatever SAN says (with
# float-cast-overflow, which gcc leaves out of undefined).
FUZZ_RG_SAN := -fsanitize=address,undefined,float-cast-overflow \
	       -fno-sanitize-recover=all -fno-omit-frame-pointer
# the fuzzers' builds of sr-mcp include the MCP App's page and the tools too
$(FUZZ_OUT)/fz/sr-mcp/tool_app.o $(FUZZ_OUT)/rg/sr-mcp/tool_app.o: sr-mcp/app_html.inc
$(FUZZ_OUT)/fz/sr-mcp/tools.o $(FUZZ_OUT)/rg/sr-mcp/tools.o: sr-mcp/tool_json.inc
$(FUZZ_OUT)/rg/%.o: %.c .build-flags | .deps-build sr-mcp/tool_table.inc
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_RG_SAN) -Isr-exec -Isr-queue -Isr-mcp -Ifuzz -c -o $@ $<

define fuzz_rule
$(FUZZ_OUT)/fuzz_$(1): $(call fuzz_objs,$(1),fz)
	$(FUZZ_CC) $(FUZZ_SANFLAGS) -fsanitize=fuzzer $(FUZZ_LINK_$(1)) -o $$@ $$^ $(PKG_LIBS) -lpthread
$(FUZZ_OUT)/regress_$(1): $(call fuzz_objs,$(1),rg) $(FUZZ_OUT)/rg/fuzz/driver.o
	$(CC) $(ALL_LDFLAGS) $(FUZZ_RG_SAN) $(FUZZ_LINK_$(1)) -o $$@ $$^ $(PKG_LIBS) -lpthread
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call fuzz_rule,$(t))))

.PHONY: fuzz fuzz-build fuzz-regress fuzz-clean
fuzz-build: $(foreach t,$(FUZZ_TARGETS),$(FUZZ_OUT)/fuzz_$(t))
fuzz-regress: $(foreach t,$(FUZZ_ALL),$(FUZZ_OUT)/regress_$(t))
fuzz: fuzz-build
	@rc=0; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_OUT)/corpus/$$t $(FUZZ_OUT)/crash/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_OUT)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_OUT)/crash/$$t/ $(FUZZ_FLAGS) \
	    $(FUZZ_OUT)/corpus/$$t fuzz/corpus/$$t > $(FUZZ_OUT)/$$t.log 2>&1 || \
	    { rc=1; echo "fuzz: $$t FAILED: see $(FUZZ_OUT)/$$t.log and $(FUZZ_OUT)/crash/$$t/"; }; \
	  grep -E '^stat::number_of_executed_units|^stat::average_exec_per_sec' $(FUZZ_OUT)/$$t.log | sed "s/^/fuzz: $$t: /"; \
	done; exit $$rc
check: fuzz-regress
clean: fuzz-clean
fuzz-clean:
	rm -rf $(FUZZ_OUT)/fz $(FUZZ_OUT)/rg $(FUZZ_OUT)/fuzz_* $(FUZZ_OUT)/regress_*
-include $(wildcard $(FUZZ_OUT)/*/*.d $(FUZZ_OUT)/*/*/*.d)
