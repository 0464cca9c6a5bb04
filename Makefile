# strobe-synth -- hardware trace windows to llvm-profgen hybrid samples.
#
#   make            build build/strobe-synth
#   make check      unit + end-to-end tests (installs missing packages first)
#   make demo       convert the bundled example and show the window summary
#   make asan       the whole suite under ASan+UBSan (build-asan/)
#   make tsan       the threaded paths under ThreadSanitizer (build-tsan/)
#   make bench      throughput against peers and floors measured in the same run
#   make fuzz       libFuzzer targets for a bounded time (FUZZ_SECONDS)
#   make fixtures   regenerate tests/fixtures from sources (cross gcc + qemu)
#   make corpus     real Debian programs against their ground truth (tests/corpus)
#   make install    PREFIX=/usr/local DESTDIR=

VERSION := 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man

BUILD ?= build
CC ?= cc
OPT ?= -O2 -g
CSTD := -std=c11
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wpointer-arith -Wvla -Wundef -Wwrite-strings -Wcast-qual
ifeq ($(DEVBUILD),1)
WARN += -Werror
endif
SAN ?=

PKGS := libopencsd libdw libelf capstone libzstd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libipt ships no .pc file in Debian; OpenCSD's .pc lacks the C API library.
LIBIPT_LIBS ?= -lipt
OPENCSD_C_API_LIBS ?= -lopencsd_c_api
CRIT_CFLAGS := $(shell pkg-config --cflags criterion 2>/dev/null)
CRIT_LIBS := $(shell pkg-config --libs criterion 2>/dev/null)

CPPFLAGS += -Iinclude -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	-DSY_VERSION='"$(VERSION)"'
ALL_CFLAGS = $(CSTD) $(OPT) $(WARN) $(SAN) $(PKG_CFLAGS) $(CFLAGS)
LIBS = $(OPENCSD_C_API_LIBS) $(PKG_LIBS) $(LIBIPT_LIBS) -lpthread -lm
ALL_LDFLAGS = $(SAN) $(LDFLAGS)

# The library, one folder per layer (tests/import-cycles knows their order),
# and the command line on top of it.
LIB_DIRS := base decode perf proc synth out
LIB_SRCS := $(sort $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c)))
CLI_SRCS := $(sort $(wildcard src/cli/*.c src/cli/*/*.c))
TESTLIB_SRCS := $(sort $(wildcard tests/lib/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
GEN_LIB_SRCS := $(sort $(wildcard tests/fixtures/gen/fx_*.c))
GEN_MAIN := $(wildcard tests/fixtures/gen/fixturegen.c)
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
BENCH_SRCS := $(sort $(wildcard bench/*.c))
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(BUILD)/%.o)
GEN_LIB_OBJS := $(GEN_LIB_SRCS:%.c=$(BUILD)/%.o)
GEN_MAIN_OBJS := $(GEN_MAIN:%.c=$(BUILD)/%.o)
UNIT_OBJS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/%)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

LIBSTROBE := $(BUILD)/libstrobe.a
PROG := $(BUILD)/strobe-synth
LIBFXGEN := $(BUILD)/libfxgen.a
FIXTUREGEN := $(if $(GEN_MAIN),$(BUILD)/sy-fixturegen)

.PHONY: all check check-core unit e2e demo asan asan-core tsan tsan-core bench \
	fuzz fuzz-core fixtures install clean deps tools valgrind corpus

all: $(PROG)

tools: $(PROG) $(FIXTUREGEN) $(UNIT_BINS) $(TOOL_BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/lib/%.o: tests/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/lib $(ALL_CFLAGS) $(CRIT_CFLAGS) -MMD -MP -c -o $@ $<

$(LIBSTROBE): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The windows command's files (src/cli/windows/) share cli.h with the rest of
# the command line.
$(CLI_OBJS): CPPFLAGS += -Isrc/cli

$(PROG): $(CLI_OBJS) $(LIBSTROBE)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(LIBSTROBE) $(LIBS)

$(BUILD)/tests/fixtures/gen/%.o: tests/fixtures/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/fixtures/gen $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIBFXGEN): $(GEN_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/sy-fixturegen: $(GEN_MAIN_OBJS) $(LIBFXGEN) $(LIBSTROBE)
	$(CC) $(ALL_LDFLAGS) -o $@ $(GEN_MAIN_OBJS) $(LIBFXGEN) $(LIBSTROBE) $(LIBS)

# Tests and benches compile to objects and link separately: a change to the
# library relinks them, it does not recompile them.
$(BUILD)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc -Itests/lib -Itests/fixtures/gen $(ALL_CFLAGS) $(CRIT_CFLAGS) \
		-MMD -MP -c -o $@ $<

$(BUILD)/tests/test_%: $(BUILD)/tests/unit/test_%.o $(TESTLIB_OBJS) $(LIBFXGEN) $(LIBSTROBE)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(TESTLIB_OBJS) $(LIBFXGEN) $(LIBSTROBE) \
		$(LIBS) $(CRIT_LIBS)

# Test tools: one program per tests/tools/*.c, on the library only.
$(BUILD)/tests/%: $(BUILD)/tests/tools/%.o $(LIBSTROBE)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBSTROBE) $(LIBS)

# truth_check compares a recording with its generated sidecar: it reads the
# sidecar with the fixture generator's library.
$(BUILD)/tests/tools/truth_check.o: CPPFLAGS += -Itests/fixtures/gen
# test_timeline compiles the CLI's timeline.c in (the CLI is no library)
$(BUILD)/tests/unit/test_timeline.o: CPPFLAGS += -Isrc/cli
$(BUILD)/tests/truth_check: $(BUILD)/tests/tools/truth_check.o $(LIBFXGEN) $(LIBSTROBE)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBFXGEN) $(LIBSTROBE) $(LIBS)

# The benches encode their traces with the fixture generator's library.
$(BUILD)/bench/%.o: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc -Itests/fixtures/gen $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIBFXGEN) $(LIBSTROBE)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBFXGEN) $(LIBSTROBE) $(LIBS)

# Objects made through pattern rules are kept, so that a second make (or
# `make unit` after `make tools`) finds them up to date.
.SECONDARY:

deps:
	@scripts/install-deps

# Unit tests run with the suppression file for OpenCSD's documented leak.
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export ASAN_OPTIONS := detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1

# Under CI=true (set by .ci/run) nothing may skip, and check also runs the
# suite under ASan+UBSan, the threaded paths under TSan and every fuzzer for
# FUZZ_SECONDS.
check: deps
	@$(MAKE) --no-print-directory check-core
ifeq ($(CI),true)
	@$(MAKE) --no-print-directory asan-core
	@$(MAKE) --no-print-directory tsan-core
	@$(MAKE) --no-print-directory fuzz-core FUZZ_SECONDS=$(CI_FUZZ_SECONDS)
endif

# Builds run JOBS compilers at once (default: the CPUs); the tests run one
# suite after the other, each spreading over the CPUs itself.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

check-core:
	@$(MAKE) --no-print-directory -j$(JOBS) tools $(UNIT_BINS) \
		$(FIXTUREGEN) $(BUILD)/tests/truth_check
	@tests/import-cycles $(BUILD)
	@tests/code-shape
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory e2e

unit: $(UNIT_BINS)
	@tests/run-unit $(UNIT_BINS)

e2e: $(PROG) $(FIXTUREGEN) $(BUILD)/tests/truth_check
	@SY_BUILD=$(BUILD) SY_SAN="$(SAN)" tests/e2e/run

demo: deps
	@$(MAKE) --no-print-directory all $(FIXTUREGEN)
	@SY_BUILD=$(BUILD) scripts/demo

asan: deps
	@$(MAKE) --no-print-directory asan-core

asan-core:
	@$(MAKE) --no-print-directory BUILD=build-asan CC=clang \
		OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" \
		check-core

# The threaded paths under ThreadSanitizer (build-tsan/).
tsan: deps
	@$(MAKE) --no-print-directory tsan-core

tsan-core:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build-tsan CC=clang \
		OPT="-O1 -g -fno-omit-frame-pointer" SAN="-fsanitize=thread" tools
	@SY_BUILD=build-tsan tests/tsan-check

valgrind: tools
	@SY_BUILD=$(BUILD) tests/valgrind-check

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BINS) $(FIXTUREGEN) \
		$(BUILD)/tests/truth_check
	@SY_BUILD=$(BUILD) bench/run

FUZZ_SECONDS ?= 60
CI_FUZZ_SECONDS ?= 60
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-core

fuzz-core:
	@SY_BUILD=build-fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run $(FUZZ_SRCS)

fixtures: $(FIXTUREGEN)
	@scripts/install-deps --regen
	@SY_BUILD=$(BUILD) tests/fixtures/regen

# Real Debian arm64 programs against their qemu-recorded truth (issue 26):
# fetches packages into $${SY_CORPUS_CACHE:-~/.cache/strobe-synth/corpus};
# CORPUS_SUBSET=ci runs the programs tagged ci in tests/corpus/programs.list.
# Not part of `make check`.
CORPUS_SUBSET ?=
corpus: tools $(BUILD)/tests/truth_check
	@scripts/install-deps --corpus
	@SY_BUILD=$(BUILD) tests/corpus/run $(if $(CORPUS_SUBSET),--subset $(CORPUS_SUBSET))

install: $(PROG)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(PROG) $(DESTDIR)$(BINDIR)/strobe-synth
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/

clean:
	rm -rf build build-asan build-tsan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
