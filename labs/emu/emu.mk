# The CPU emulator of CUDA (EMU=1): its variables, the runtime library's rules, its tests and
# its benchmark. The top-level Makefile includes this file; labs/emu/CONTRACT.md says how.

EMU_DIR      := labs/emu
EMU_CXX      ?= g++
EMU_PYTHON   ?= python3
EMU_REWRITE   = $(EMU_PYTHON) $(EMU_DIR)/rewriter
# Optimization of emulated code (the student's kernels): EMU_OPT=-O0 for stepping in gdb.
EMU_OPT      ?= -O2
EMU_ASAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer
EMU_SAN       = $(if $(ASAN),$(EMU_ASAN_FLAGS))
# -fstack-clash-protection makes a kernel whose locals outgrow its fiber's stack touch the
# guard page (and get a clear message) instead of writing over a neighbouring stack.
EMU_CXXFLAGS  = -std=c++17 $(EMU_OPT) -g -pthread -fstack-clash-protection -I$(EMU_DIR)/include $(EMU_SAN)
EMU_LDFLAGS   = -pthread -lboost_context $(EMU_SAN)
# One runtime per sanitizer setting: fiber switches are announced to AddressSanitizer only
# in the ASan build.
EMU_LIB_DIR   = build/emu/$(if $(ASAN),asan,plain)
EMU_LIB       = $(EMU_LIB_DIR)/libcudaemu.a

# src/api/ the runtime API, src/engine/ what runs blocks, src/reports/ what the emulator tells
# the student; headers are included by their folder ("engine/fiber.h") from -I src.
EMU_RUNTIME_SRCS  := $(wildcard $(EMU_DIR)/src/*.cpp $(EMU_DIR)/src/*/*.cpp)
# labs/common for exit_codes.h: the race detector exits with LAB_EXIT_RACE.
EMU_RUNTIME_FLAGS := -std=c++17 -O2 -g -pthread -Wall -Wextra -DCUDAEMU_RUNTIME_BUILD -I$(EMU_DIR)/include -I$(EMU_DIR)/src -Ilabs/common
EMU_REWRITER      := $(wildcard $(EMU_DIR)/rewriter/*.py)
# What a program's objects are made from besides their source (the Makefile's EMU rules).
EMU_BUILD_INPUTS  := $(EMU_REWRITER) $(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/include/*/*.h)

# The runtime, built plain and with ASan (the pattern covers both).
define emu_runtime_rules
build/emu/$(1)/libcudaemu.a: $$(patsubst $(EMU_DIR)/src/%.cpp,build/emu/$(1)/obj/%.o,$$(EMU_RUNTIME_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^
build/emu/$(1)/obj/%.o: $(EMU_DIR)/src/%.cpp
	@mkdir -p $$(@D)
	$$(EMU_CXX) $$(EMU_RUNTIME_FLAGS) $(2) -MMD -MP -c $$< -o $$@
-include $$(patsubst $(EMU_DIR)/src/%.cpp,build/emu/$(1)/obj/%.d,$$(EMU_RUNTIME_SRCS))
endef
$(eval $(call emu_runtime_rules,plain,))
$(eval $(call emu_runtime_rules,asan,$(EMU_ASAN_FLAGS)))

# ---- Tests: GoogleTest suites written as .cu files, built the way student code is (rewrite,
# then g++), into one binary; plus tiny programs built with ASan whose reports a test reads.
EMU_TEST_OUT     := build/emu/tests
EMU_TEST_SRCS    := $(wildcard tests/emu/*_test.cu)
EMU_TEST_OBJS    := $(patsubst tests/emu/%.cu,$(EMU_TEST_OUT)/obj/%.o,$(EMU_TEST_SRCS))
EMU_ASAN_PROGS   := $(patsubst tests/emu/asan/%.cu,$(EMU_TEST_OUT)/asan/%,$(wildcard tests/emu/asan/*.cu))
EMU_TEST_FLAGS    = -std=c++17 -O1 -g -pthread -I$(EMU_DIR)/include -Ilabs/common -Wall -Wno-unused-variable \
                    -DEMU_TEST_PROGRAMS='"$(abspath $(EMU_TEST_OUT))"' -DEMU_REPO_ROOT='"$(abspath .)"'

GTEST_BINS += $(EMU_TEST_OUT)/emu_tests

$(EMU_TEST_OUT)/emu_tests: $(EMU_TEST_OBJS) build/emu/plain/libcudaemu.a $(EMU_ASAN_PROGS)
	$(EMU_CXX) $(EMU_TEST_FLAGS) $(EMU_TEST_OBJS) build/emu/plain/libcudaemu.a -o $@ \
	    $(GTEST_LIBS) -pthread -lboost_context

$(EMU_TEST_OUT)/obj/%.o: tests/emu/%.cu $(EMU_REWRITER) $(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/include/*/*.h) \
                         $(wildcard tests/emu/*.h)
	@mkdir -p $(@D)
	$(EMU_REWRITE) $< $@.emu.cpp
	$(EMU_CXX) $(EMU_TEST_FLAGS) -Itests/emu -c $@.emu.cpp -o $@

$(EMU_TEST_OUT)/asan/%: tests/emu/asan/%.cu build/emu/asan/libcudaemu.a $(EMU_REWRITER) \
                        $(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/include/*/*.h)
	@mkdir -p $(@D)
	$(EMU_REWRITE) $< $@.emu.cpp
	$(EMU_CXX) -std=c++17 -O1 -g -pthread -I$(EMU_DIR)/include $(EMU_ASAN_FLAGS) $@.emu.cpp \
	    build/emu/asan/libcudaemu.a -o $@ -pthread -lboost_context $(EMU_ASAN_FLAGS)

# ---- The benchmark (not a test): fiber switch cost, a barrier-heavy kernel, increment at 2^20,
# a tiled product, each plain and under EMU_RACECHECK=1; then the race detector's cost on the
# labs' public cases (racecheck_labs.py, which builds and grades the reference solutions).
EMU_BENCH_OUT := build/emu/bench
.PHONY: emu-bench
emu-bench: $(EMU_BENCH_OUT)/emu_bench
	@EMU_SCHEDULE= ./$<
	@EMU_SCHEDULE= $(EMU_PYTHON) $(EMU_DIR)/bench/racecheck_labs.py

EMU_BENCH_SRCS := $(wildcard $(EMU_DIR)/bench/*.cu $(EMU_DIR)/bench/*.cpp)
$(EMU_BENCH_OUT)/emu_bench: $(EMU_BENCH_SRCS) $(EMU_DIR)/bench/bench.h build/emu/plain/libcudaemu.a $(EMU_REWRITER)
	@mkdir -p $(@D)/obj
	@for f in $(EMU_BENCH_SRCS); do \
	    $(EMU_REWRITE) $$f $(@D)/obj/$$(basename $$f).emu.cpp || exit 1; done
	$(EMU_CXX) -std=c++17 -O2 -g -pthread -I$(EMU_DIR)/include -I$(EMU_DIR)/src -I$(EMU_DIR)/bench \
	    $(patsubst $(EMU_DIR)/bench/%,$(@D)/obj/%.emu.cpp,$(EMU_BENCH_SRCS)) \
	    build/emu/plain/libcudaemu.a -o $@ -pthread -lboost_context
