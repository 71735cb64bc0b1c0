# xprof - profile-feedback toolchain.
#
#   make              build lib/libxprof.a and the tools
#   make demo         build, then run the job of a pipeline on the bundled
#                     example (examples/wc): training runs, a weighted merge,
#                     the hottest code, a coverage listing, a comparison and
#                     the lossless round trip
#   make check        build and run the test suite
#   make check-asan   rebuild everything with ASan+UBSan into build-asan/
#                     (and with clang into build-asan-clang/)
#                     and run the test suite and the fuzz-corpus replay
#   make fuzz         libFuzzer targets into build-fuzz/ (needs clang)
#   make fuzz-run     run each libFuzzer target FUZZ_SECONDS (default 60)
#   make bench        benchmarks (not part of check), built into build-bench/
#   make install      PREFIX=/usr/local DESTDIR=
#   make uninstall    PREFIX=/usr/local DESTDIR=
#
# All outputs go below $(O) (default: the source tree): $(O)/lib/libxprof.a,
# each tool in its folder ($(O)/atob/xprof_atob, $(O)/show/xprof_show, ...);
# objects, generated sources, dependency files and test binaries under
# $(O)/build.  Every object records the headers it included (-MMD -MP), so a
# change to a header rebuilds exactly what uses it.
#
# demo, check, check-asan and bench first run build-aux/deps.sh, which
# installs missing build and test dependencies with apt-get when run as root
# and otherwise names the command to run.  Plain `make` only checks the
# build dependencies.  NODEPS=1 skips the dependency check altogether.
#
# XPROF_WERROR=1 turns warnings into errors; default builds keep them
# non-fatal so that a newer compiler's new warning never breaks a build.

O ?= .
B := $(O)/build

CC ?= cc
CFLAGS ?= -O2 -g
XCFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wno-unused-parameter -Ilib -I$(B)/gen
DEPFLAGS = -MMD -MP
ifeq ($(XPROF_WERROR),1)
XCFLAGS += -Werror
endif
LDFLAGS ?=
# Libraries that programs linked with libxprof.a need besides it.
XLIBS := -lbfd -lz -lpthread -lm
FLEX ?= flex
BISON ?= bison
FLEXFLAGS ?= -Cf
BISONFLAGS ?= -Wall -Wno-yacc
SHELL := /bin/sh

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

LIB := $(O)/lib/libxprof.a
# One tool per folder: NAME/main.c (and the folder's other .c files) make
# $(O)/NAME/xprof_NAME, linked with common/tool.c and the library.
TOOL_NAMES := atob btoa merge diff show tcov
ATOB := $(O)/atob/xprof_atob
BTOA := $(O)/btoa/xprof_btoa
MERGE := $(O)/merge/xprof_merge
DIFF := $(O)/diff/xprof_diff
SHOW := $(O)/show/xprof_show
TCOV := $(O)/tcov/xprof_tcov
TOOLS := $(foreach t,$(TOOL_NAMES),$(O)/$(t)/xprof_$(t))

# The library: every lib/FOLDER/*.c (README.md, Layout, says what each
# folder holds).
LIB_SRCS := $(sort $(wildcard lib/*/*.c))
GEN_SRCS := $(B)/gen/xprof_text.tab.c $(B)/gen/xprof_text.lex.c \
            $(B)/gen/dcpi_header.tab.c $(B)/gen/dcpi_header.lex.c
GEN_HDRS := $(B)/gen/xprof_text.tab.h $(B)/gen/xprof_text.lex.h \
            $(B)/gen/dcpi_header.tab.h $(B)/gen/dcpi_header.lex.h \
            $(B)/gen/crc32c_table.h $(B)/gen/pow10_table.h \
            $(B)/gen/modules.h \
            $(B)/gen/xprof_formats.h
# The modules of the foreign formats, in the order of lib/modules.list,
# which is also the order in which they recognise a file.
MODULES := $(shell sed -e 's/\#.*//' lib/modules.list | awk 'NF { print $$1 }')
LIB_OBJS := $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRCS)) \
            $(patsubst $(B)/gen/%.c,$(B)/gen/%.o,$(GEN_SRCS))

# Test programs: one binary per tests/unit/*.c, and the fuzz-corpus replay
# driver.  Both are built by `make check`, not by plain `make`.
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
REPLAY := $(B)/tests/fuzz_replay
REPLAY_SRC := $(wildcard tests/fuzz/replay.c)
# The checks that the replay driver and the fuzz targets share.
FUZZ_COMMON := $(filter-out tests/fuzz/replay.c tests/fuzz/fuzz_%.c, \
                 $(sort $(wildcard tests/fuzz/*.c)))
# The benchmark's generator of large texts also makes the small generated
# texts of tests/gen.sh.
BENCH_GEN := $(B)/bench/gen
# The generator of DCPI profiles that tests/dcpi.sh uses.
DCPIGEN := $(B)/tests/dcpigen
TEST_BINS := $(UNIT_BINS) $(if $(REPLAY_SRC),$(REPLAY)) \
             $(if $(wildcard bench/gen.c),$(BENCH_GEN)) \
             $(if $(wildcard tests/dcpigen.c),$(DCPIGEN))

# Everything a test needs to find, handed to tests/run.sh and its scripts.
TEST_ENV = ATOB='$(abspath $(ATOB))' BTOA='$(abspath $(BTOA))' \
           MERGE='$(abspath $(MERGE))' DIFF='$(abspath $(DIFF))' \
           SHOW='$(abspath $(SHOW))' TCOV='$(abspath $(TCOV))' \
           XP_O='$(abspath $(O))' XP_BUILD='$(abspath $(B))' \
           SRCDIR='$(CURDIR)' MAKE='$(MAKE)' XP_CC='$(CC)' XP_CXX='$(CXX)' \
           XP_CFLAGS='$(CFLAGS)' XP_LDFLAGS='$(LDFLAGS)' \
           XP_XCFLAGS='$(XCFLAGS)' XP_LIBS='$(XLIBS)' \
           XP_SANITIZE='$(XP_SANITIZE)'

# The sanitizer build: no recovery, so that the first finding fails the run.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer
ASAN_MAKEFLAGS := O=build-asan CFLAGS='$(ASAN_FLAGS)' LDFLAGS='$(ASAN_FLAGS)' \
                  NODEPS=1 XP_SANITIZE=1
# The same suite is run a second time built by clang when it is there:
# its UndefinedBehaviorSanitizer checks more (pointer overflow on every
# arithmetic, not only where gcc instruments it).
ASAN_CLANG_MAKEFLAGS := O=build-asan-clang CC=clang CFLAGS='$(ASAN_FLAGS)' \
                        LDFLAGS='$(ASAN_FLAGS)' NODEPS=1 XP_SANITIZE=1
# tests/lsan.supp holds the leaks of libbfd itself (see there).
ASAN_ENV := ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
# No recovery: undefined behaviour stops a fuzz run and leaves its input.
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))

DEPS := $(SHELL) build-aux/deps.sh
ifeq ($(NODEPS),1)
DEPS := :
endif

.PHONY: all
all: deps-build $(LIB) $(TOOLS)

.PHONY: deps-build deps
deps-build:
	@$(DEPS) --build
deps:
	@$(DEPS) --install

$(B) $(B)/gen $(B)/build-aux $(B)/tests $(B)/fuzz $(B)/bench $(O)/lib \
$(foreach t,$(TOOL_NAMES),$(O)/$(t)):
	@mkdir -p $@

# Generated sources ------------------------------------------------------

$(B)/gen/xprof_text.tab.c $(B)/gen/xprof_text.tab.h: grammar/xprof_text.y | $(B)/gen
	$(BISON) $(BISONFLAGS) --defines=$(B)/gen/xprof_text.tab.h \
	    -o $(B)/gen/xprof_text.tab.c $<

$(B)/gen/xprof_text.lex.c $(B)/gen/xprof_text.lex.h: grammar/xprof_text.l | $(B)/gen
	$(FLEX) $(FLEXFLAGS) --header-file=$(B)/gen/xprof_text.lex.h \
	    -o $(B)/gen/xprof_text.lex.c $<

$(B)/gen/dcpi_header.tab.c $(B)/gen/dcpi_header.tab.h: grammar/dcpi_header.y | $(B)/gen
	$(BISON) $(BISONFLAGS) --defines=$(B)/gen/dcpi_header.tab.h \
	    -o $(B)/gen/dcpi_header.tab.c $<

$(B)/gen/dcpi_header.lex.c $(B)/gen/dcpi_header.lex.h: grammar/dcpi_header.l | $(B)/gen
	$(FLEX) $(FLEXFLAGS) --header-file=$(B)/gen/dcpi_header.lex.h \
	    -o $(B)/gen/dcpi_header.lex.c $<

# Rewritten only when the list of modules changes.
$(B)/gen/modules.h: lib/modules.list FORCE | $(B)/gen
	@printf '%s\n' $(foreach m,$(MODULES),'XP_MODULE($(m))') > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# The public constants of the modules' formats (lib/modules.list says
# how); rewritten only when they change.
$(B)/gen/xprof_formats.h: lib/modules.list build-aux/formats.sh FORCE | $(B)/gen
	@$(SHELL) build-aux/formats.sh lib/modules.list > $@.tmp && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(B)/build-aux/gencrc: build-aux/gencrc.c | $(B)/build-aux
	$(CC) $(XCFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(B)/gen/crc32c_table.h: $(B)/build-aux/gencrc | $(B)/gen
	$(B)/build-aux/gencrc > $@.tmp && mv $@.tmp $@

$(B)/build-aux/genpow10: build-aux/genpow10.c | $(B)/build-aux
	$(CC) $(XCFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(B)/gen/pow10_table.h: $(B)/build-aux/genpow10 | $(B)/gen
	$(B)/build-aux/genpow10 > $@.tmp && mv $@.tmp $@

# Library -----------------------------------------------------------------

# The generated headers come first (order only); after that each object's
# .d file names the headers it really includes.
$(B)/lib/%.o: lib/%.c | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(DEPFLAGS) $(CFLAGS) -c -o $@ $<

# Generated code is not held to the warning flags of our own code.
GEN_XCFLAGS = $(XCFLAGS) -Wno-unused-function -Wno-sign-compare \
              -Wno-missing-prototypes -Igrammar
$(B)/gen/%.o: $(B)/gen/%.c | $(GEN_HDRS)
	$(CC) $(GEN_XCFLAGS) $(DEPFLAGS) $(CFLAGS) -c -o $@ $<

# Several folders have a merge.c or a module.c: the archive is always made
# anew, so that members of the same name are all kept.
$(LIB): $(LIB_OBJS) | $(O)/lib
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

# Tools -------------------------------------------------------------------

# The objects of the tools, and of common/tool.c, which every tool shares
# (printing diagnostics, usage errors, tables, JSON).
TOOL_OBJ := $(B)/tools/common/tool.o
$(B)/tools/%.o: %.c | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(DEPFLAGS) -Icommon -I$(<D) $(CFLAGS) -c -o $@ $<

# The one link rule: $(O)/NAME/xprof_NAME from the objects of NAME/*.c.
define tool_link
$(O)/$(1)/xprof_$(1): $(patsubst %.c,$(B)/tools/%.o,$(sort $(wildcard $(1)/*.c))) \
                      $(TOOL_OBJ) $(LIB) | $(O)/$(1)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(LIB) $$(XLIBS)
endef
$(foreach t,$(TOOL_NAMES),$(eval $(call tool_link,$(t))))

# Tests -------------------------------------------------------------------

# Test programs are compiled and linked in one step; their .d files sit
# beside them.
$(B)/tests/%: tests/unit/%.c $(LIB) | $(B)/tests $(GEN_HDRS)
	$(CC) $(XCFLAGS) $(DEPFLAGS) -MF $@.d -Itests/unit $(CFLAGS) $(LDFLAGS) \
	    -o $@ $< $(LIB) $(XLIBS)

$(DCPIGEN): tests/dcpigen.c | $(B)/tests
	$(CC) $(XCFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(REPLAY): tests/fuzz/replay.c $(FUZZ_COMMON) $(LIB) | $(B)/tests $(GEN_HDRS)
	$(CC) $(XCFLAGS) $(DEPFLAGS) -MF $@.d -Itests/fuzz $(CFLAGS) $(LDFLAGS) \
	    -o $@ tests/fuzz/replay.c $(FUZZ_COMMON) $(LIB) $(XLIBS)

.PHONY: test-bins
test-bins: $(LIB) $(TOOLS) $(TEST_BINS)

# Runs the suite against the binaries of this $(O); check and check-asan
# call it through a sub-make once the dependencies are in place.
.PHONY: check-run
check-run: test-bins
	@$(TEST_ENV) $(SHELL) tests/run.sh

# Replays every stored input through the replay driver: the fuzz corpus,
# the valid test data and the inputs that must be rejected (folders are
# walked).  The driver prints a FAIL line per broken promise and a
# summary, and its exit status says whether anything went wrong beyond a
# clean rejection.
REPLAY_INPUTS = $(wildcard tests/fuzz/corpus tests/data tests/bad)
.PHONY: replay-run
replay-run: $(if $(REPLAY_SRC),$(REPLAY))
	@if [ -z "$(REPLAY_SRC)" ]; then \
	    echo "replay: tests/fuzz/replay.c is missing"; exit 1; fi
	$(REPLAY) $(REPLAY_INPUTS)

.PHONY: check
check:
	@$(DEPS) --install
	@$(MAKE) --no-print-directory check-run

.PHONY: check-asan
check-asan:
	@$(DEPS) --install
	@status=0; \
	$(ASAN_ENV) $(MAKE) --no-print-directory $(ASAN_MAKEFLAGS) replay-run \
	    || status=1; \
	$(ASAN_ENV) $(MAKE) --no-print-directory $(ASAN_MAKEFLAGS) check-run \
	    || status=1; \
	if command -v clang >/dev/null 2>&1; then \
	    $(ASAN_ENV) $(MAKE) --no-print-directory $(ASAN_CLANG_MAKEFLAGS) \
	        replay-run || status=1; \
	    $(ASAN_ENV) $(MAKE) --no-print-directory $(ASAN_CLANG_MAKEFLAGS) \
	        check-run || status=1; \
	else \
	    echo "check-asan: clang is missing: its sanitizer run is left out"; \
	    status=1; \
	fi; \
	exit $$status

# Demo --------------------------------------------------------------------

.PHONY: demo
demo:
	@$(DEPS) --install
	@$(MAKE) --no-print-directory NODEPS=1 all
	@$(SHELL) build-aux/demo.sh '$(O)' examples/wc '$(B:./%=%)/demo'

# Fuzzing -----------------------------------------------------------------

# The library and the targets are built with clang's coverage
# instrumentation; a machine without clang or libFuzzer skips with a note.
.PHONY: fuzz fuzz-build fuzz-run
fuzz:
	@if $(SHELL) build-aux/have-libfuzzer.sh '$(FUZZ_CC)'; then \
	    $(MAKE) --no-print-directory O=build-fuzz CC='$(FUZZ_CC)' NODEPS=1 \
	        CFLAGS='$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined' \
	        fuzz-build; \
	else \
	    echo "fuzz: skipped: $(FUZZ_CC) with libFuzzer is not available"; \
	fi

fuzz-build: $(FUZZ_BINS)

$(B)/fuzz/%: tests/fuzz/%.c $(FUZZ_COMMON) $(LIB) | $(B)/fuzz $(GEN_HDRS)
	$(CC) $(XCFLAGS) $(DEPFLAGS) -MF $@.d -Itests/fuzz $(CFLAGS) \
	    -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_COMMON) \
	    $(LIB) $(XLIBS)

fuzz-run: fuzz
	@if $(SHELL) build-aux/have-libfuzzer.sh '$(FUZZ_CC)'; then \
	    $(SHELL) build-aux/fuzz-run.sh build-fuzz/build/fuzz \
	        '$(FUZZ_SECONDS)' $(FUZZ_SRCS); \
	fi

# Benchmark ---------------------------------------------------------------

.PHONY: bench bench-run
bench:
	@$(DEPS) --bench
	@$(MAKE) --no-print-directory O=build-bench CFLAGS='-O2 -g -DNDEBUG' \
	    NODEPS=1 bench-run

# The benchmark's helpers: a command's wall time and peak RSS (wait4),
# the memcpy reference, and the generator of gperftools CPU profiles.
BENCH_RUSAGE := $(B)/bench/rusage
BENCH_MEMCPY := $(B)/bench/memcpy
BENCH_CPUPROF := $(B)/bench/cpuprof
BENCH_HELPERS := $(BENCH_RUSAGE) $(BENCH_MEMCPY) $(BENCH_CPUPROF)
BENCH_ENV = ATOB='$(abspath $(ATOB))' BTOA='$(abspath $(BTOA))' \
            MERGE='$(abspath $(MERGE))' DIFF='$(abspath $(DIFF))' \
            SHOW='$(abspath $(SHOW))' TCOV='$(abspath $(TCOV))' \
            BENCH_GEN='$(abspath $(BENCH_GEN))' \
            BENCH_RUSAGE='$(abspath $(BENCH_RUSAGE))' \
            BENCH_MEMCPY='$(abspath $(BENCH_MEMCPY))' \
            BENCH_CPUPROF='$(abspath $(BENCH_CPUPROF))'

bench-run: $(LIB) $(TOOLS) $(BENCH_GEN) $(BENCH_HELPERS)
	$(BENCH_ENV) $(SHELL) bench/run.sh
	$(BENCH_ENV) $(SHELL) bench/foreign.sh
	$(BENCH_ENV) $(SHELL) bench/scale.sh
	$(BENCH_ENV) $(SHELL) bench/inputs.sh

$(BENCH_HELPERS): $(B)/bench/%: bench/%.c | $(B)/bench
	$(CC) $(XCFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(BENCH_GEN): bench/gen.c $(LIB) | $(B)/bench $(GEN_HDRS)
	$(CC) $(XCFLAGS) $(DEPFLAGS) -MF $@.d $(CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(LIB) $(XLIBS)

# Install -----------------------------------------------------------------

MAN1 := $(sort $(wildcard docs/*.1))
# xprof.h and the headers of the format modules (xprof_gmon.h, ...).
PUBLIC_HDRS := $(sort $(wildcard lib/xprof*.h)) $(B)/gen/xprof_formats.h
MAN5 := $(sort $(wildcard docs/*.5))
XP_VERSION = $(shell sed -n 's/^\#define XP_VERSION_STRING "\(.*\)"/\1/p' lib/xprof.h)

# Directories below the prefix are written relative to it, so that
# pkg-config --define-prefix and --define-variable=prefix=... can move them.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

$(B)/xprof.pc: xprof.pc.in lib/xprof.h FORCE | $(B)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(PC_LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|g' -e 's|@VERSION@|$(XP_VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(XLIBS)|g' xprof.pc.in > $@.tmp && mv $@.tmp $@

.PHONY: install uninstall FORCE
FORCE:
install: $(LIB) $(TOOLS) $(B)/xprof.pc
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(LIBDIR)' \
	    '$(DESTDIR)$(INCLUDEDIR)' '$(DESTDIR)$(PKGCONFIGDIR)' \
	    '$(DESTDIR)$(MANDIR)/man1' '$(DESTDIR)$(MANDIR)/man5'
	install -m 755 $(TOOLS) '$(DESTDIR)$(BINDIR)'
	install -m 644 $(LIB) '$(DESTDIR)$(LIBDIR)'
	install -m 644 $(PUBLIC_HDRS) '$(DESTDIR)$(INCLUDEDIR)'
	install -m 644 $(B)/xprof.pc '$(DESTDIR)$(PKGCONFIGDIR)/xprof.pc'
	$(if $(MAN1),install -m 644 $(MAN1) '$(DESTDIR)$(MANDIR)/man1')
	$(if $(MAN5),install -m 644 $(MAN5) '$(DESTDIR)$(MANDIR)/man5')

uninstall:
	rm -f $(foreach f,$(notdir $(TOOLS)),'$(DESTDIR)$(BINDIR)/$(f)') \
	    '$(DESTDIR)$(LIBDIR)/libxprof.a' \
	    $(foreach f,$(notdir $(PUBLIC_HDRS)),'$(DESTDIR)$(INCLUDEDIR)/$(f)') \
	    '$(DESTDIR)$(PKGCONFIGDIR)/xprof.pc' \
	    $(foreach f,$(notdir $(MAN1)),'$(DESTDIR)$(MANDIR)/man1/$(f)') \
	    $(foreach f,$(notdir $(MAN5)),'$(DESTDIR)$(MANDIR)/man5/$(f)')

# -------------------------------------------------------------------------

.PHONY: clean
clean:
	rm -rf build build-asan build-asan-clang build-fuzz build-bench $(B) $(LIB) $(TOOLS) \
	    lib/libxprof.a xprof.pc \
	    $(foreach t,$(TOOL_NAMES),$(t)/xprof_$(t))

# The headers each object, test program and tool included.
-include $(shell find $(B) -name '*.d' 2>/dev/null)
