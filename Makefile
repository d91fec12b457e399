# sr - rootless sandbox toolkit.
#   make            build every tool (installs missing Debian packages first)
#   make demo       build, then run a real command through the tools
#   make check      build and run the whole test suite through prove
#   make bench      measure sr against bwrap and bare exec
#   make install PREFIX=/usr/local DESTDIR=

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/sr
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
PROGS    := $(foreach t,$(TOOLS),$(t)/$(t))
LIB_SRC  := $(wildcard lib/*.c)
LIB_OBJ  := $(LIB_SRC:.c=.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNITS    := $(UNIT_SRC:.c=)
MANS     := $(wildcard man/*.1)
DATA     := $(wildcard sr-*/data/*)
OBJS      = $(LIB_OBJ) $(foreach t,$(TOOLS),$(patsubst %.c,%.o,$(wildcard $(t)/*.c)))

.PHONY: all deps check-deps demo check bench lint install uninstall clean
all: .deps-build $(PROGS)

# Missing Debian packages are installed by the build itself (see lib/deps.sh).
.deps-build: lib/deps.sh
	@sh lib/deps.sh build
	@touch $@
deps: .deps-build
check-deps: .deps-build
	@sh lib/deps.sh check

# Rebuild everything when the flags change (e.g. SAN=address,undefined).
.build-flags: FORCE | .deps-build
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || \
	  echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@
FORCE:

%.o: %.c .build-flags | .deps-build
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

lib/libsr.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

# Tools that need neither libseccomp nor cJSON are linked static-pie: no
# dynamic loader at each start (sr-jail is on every sandbox's path). Not
# with sanitizers, whose runtimes are shared libraries.
STATIC_TOOLS := sr-jail
link_mode = $(if $(and $(filter $(1),$(STATIC_TOOLS)),$(if $(SAN),,y)),-static-pie,)
link_libs = $(if $(call link_mode,$(1)),,$(PKG_LIBS))

define tool_rule
$(1)/$(1): $(patsubst %.c,%.o,$(wildcard $(1)/*.c)) lib/libsr.a .build-flags
	$$(CC) $$(ALL_LDFLAGS) $$(call link_mode,$(1)) -o $$@ $$(filter %.o %.a,$$^) $$(call link_libs,$(1))
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# sr-exec embeds the default profile's BPF, compiled at build time by a
# first build of itself (see sr-exec/builtin.c).
SX_GEN_OBJS := $(filter-out sr-exec/builtin.o,$(patsubst %.c,%.o,$(wildcard sr-exec/*.c)))
sr-exec/builtin-none.o: sr-exec/builtin.c .build-flags | .deps-build
	$(CC) $(ALL_CFLAGS) -DSX_NO_BUILTIN -c -o $@ $<
sr-exec/sr-exec-gen: $(SX_GEN_OBJS) sr-exec/builtin-none.o lib/libsr.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)
sr-exec/default.bpf: sr-exec/sr-exec-gen
	sr-exec/sr-exec-gen --save-bpf $@
sr-exec/default-net.bpf: sr-exec/sr-exec-gen
	sr-exec/sr-exec-gen --net --save-bpf $@
sr-exec/builtin.inc: sr-exec/default.bpf sr-exec/default-net.bpf sr-exec/bpf2c.sh
	sh sr-exec/bpf2c.sh builtin_default sr-exec/default.bpf \
	  builtin_default_net sr-exec/default-net.bpf > $@.tmp && mv $@.tmp $@
sr-exec/builtin.o: sr-exec/builtin.inc

tests/unit/%: tests/unit/%.o lib/libsr.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

demo: all
	@sh tests/demo.sh

check: all check-deps $(UNITS)
	@SAN='$(SAN)' bash tests/run

bench: all
	@bash bench/run

lint:
	mandoc -Tlint -Wwarning $(MANS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	@for f in $(DATA); do \
	  d=$(DESTDIR)$(DATADIR)/$$(basename $$(dirname $$(dirname $$f))); \
	  install -d $$d && install -m 0644 $$f $$d/ || exit 1; \
	done

uninstall:
	rm -f $(foreach p,$(PROGS),$(DESTDIR)$(BINDIR)/$(notdir $(p)))
	rm -f $(foreach m,$(MANS),$(DESTDIR)$(MANDIR)/man1/$(notdir $(m)))
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -f $(OBJS) $(OBJS:.o=.d) $(PROGS) lib/libsr.a $(UNITS) sr-exec/sr-exec-gen \
	      sr-exec/builtin-none.[od] sr-exec/builtin.inc sr-exec/*.bpf \
	      $(UNIT_SRC:.c=.o) $(UNIT_SRC:.c=.d) .build-flags

-include $(OBJS:.o=.d) $(UNIT_SRC:.c=.d)
