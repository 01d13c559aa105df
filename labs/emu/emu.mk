# The CPU emulator of CUDA (EMU=1): its variables, the runtime library's rules, its tests and
# its benchmark. The top-level Makefile includes this file; labs/emu/CONTRACT.md says how.

EMU_DIR      := labs/emu
EMU_CXX      ?= g++
EMU_PYTHON   ?= python3
# The drop-in compiler (nvcc's options): the Makefile's EMU=1 build compiles and links with it.
# Everything built for the emulator (labs, tests, benchmark) goes through it.
emu_nvcc      = EMU_CXX='$(EMU_CXX)' EMU_FIBER=$(1) $(EMU_PYTHON) $(EMU_DIR)/bin/nvcc-emu
EMU_NVCC      = $(call emu_nvcc,$(EMU_FIBER))
# Optimization of emulated code (the student's kernels): EMU_OPT=-O0 for stepping in gdb.
EMU_OPT      ?= -O2
EMU_ASAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer
EMU_SAN       = $(if $(ASAN),$(EMU_ASAN_FLAGS))
# The flags emulated code is compiled with are nvcc-emu's (emulated_code_flags there).
# Where the runtime is built: labs/emu/bin/nvcc-emu names a cache folder when the kit is not
# writable.
EMU_OUT      ?= build/emu

# Fibers switch with Boost.Context where its header and library are there, else with the C
# library's ucontext (swapcontext: a system call a switch, so barriers cost more; make
# emu-bench shows how much). EMU_FIBER=ucontext forces the fallback (CI builds both).
# Probed once per make, and only when something is built for the emulator.
EMU_FIBER_PROBE = $(shell printf '\043include <boost/context/detail/fcontext.hpp>\n' | $(EMU_CXX) -x c++ -E - -o /dev/null 2>/dev/null \
                    && case "$$($(EMU_CXX) -print-file-name=libboost_context.so)$$($(EMU_CXX) -print-file-name=libboost_context.a)" in \
                       (*/*) echo boost;; (*) echo ucontext;; esac || echo ucontext)
EMU_FIBER ?= $(eval EMU_FIBER := $(EMU_FIBER_PROBE))$(if $(filter ucontext,$(EMU_FIBER)),$(info note: Boost.Context not found (libboost-context-dev): the emulator switches fibers with ucontext, slower at barriers))$(EMU_FIBER)
EMU_FIBER_LIBS  = $(if $(filter ucontext,$(EMU_FIBER)),,-lboost_context)
EMU_FIBER_FLAGS = $(if $(filter ucontext,$(EMU_FIBER)),-DCUDAEMU_FIBER_UCONTEXT=1)
EMU_LDFLAGS   = -pthread $(EMU_FIBER_LIBS) $(EMU_SAN)
# One runtime per sanitizer setting (fiber switches are announced to AddressSanitizer only
# in the ASan build) and per fiber backend.
EMU_VARIANT   = $(if $(ASAN),asan,plain)$(if $(filter ucontext,$(EMU_FIBER)),-ucontext)
EMU_LIB_DIR   = $(EMU_OUT)/$(EMU_VARIANT)
EMU_LIB       = $(EMU_LIB_DIR)/libcudaemu.a
EMU_FIBER_SUFFIX = $(if $(filter ucontext,$(EMU_FIBER)),-ucontext)
EMU_PLAIN_LIB = $(EMU_OUT)/plain$(EMU_FIBER_SUFFIX)/libcudaemu.a
EMU_ASAN_LIB  = $(EMU_OUT)/asan$(EMU_FIBER_SUFFIX)/libcudaemu.a

# src/api/ the runtime API, src/engine/ what runs blocks, src/reports/ what the emulator tells
# the student; headers are included by their folder ("engine/fiber.h") from -I src.
EMU_RUNTIME_SRCS  := $(wildcard $(EMU_DIR)/src/*.cpp $(EMU_DIR)/src/*/*.cpp)
# labs/common for exit_codes.h: the race detector exits with LAB_EXIT_RACE.
EMU_RUNTIME_FLAGS := -std=c++17 -O2 -g -pthread -Wall -Wextra -DCUDAEMU_RUNTIME_BUILD -I$(EMU_DIR)/include -I$(EMU_DIR)/src -Ilabs/common
EMU_REWRITER      := $(wildcard $(EMU_DIR)/rewriter/*.py)
# What a program's objects are made from besides their source (the Makefile's EMU rules).
EMU_BUILD_INPUTS  := $(EMU_REWRITER) $(EMU_DIR)/bin/nvcc-emu $(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/include/*/*.h) $(wildcard $(EMU_DIR)/include/cub/*.cuh $(EMU_DIR)/include/cub/*/*.cuh)

# The runtime, built plain and with ASan, each with either fiber backend.
define emu_runtime_rules
$(EMU_OUT)/$(1)/libcudaemu.a: $$(patsubst $(EMU_DIR)/src/%.cpp,$(EMU_OUT)/$(1)/obj/%.o,$$(EMU_RUNTIME_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^
$(EMU_OUT)/$(1)/obj/%.o: $(EMU_DIR)/src/%.cpp
	@mkdir -p $$(@D)
	$$(EMU_CXX) $$(EMU_RUNTIME_FLAGS) $(2) -MMD -MP -c $$< -o $$@
-include $$(patsubst $(EMU_DIR)/src/%.cpp,$(EMU_OUT)/$(1)/obj/%.d,$$(EMU_RUNTIME_SRCS))
endef
$(eval $(call emu_runtime_rules,plain,))
$(eval $(call emu_runtime_rules,asan,$(EMU_ASAN_FLAGS)))
$(eval $(call emu_runtime_rules,plain-ucontext,-DCUDAEMU_FIBER_UCONTEXT=1))
$(eval $(call emu_runtime_rules,asan-ucontext,$(EMU_ASAN_FLAGS) -DCUDAEMU_FIBER_UCONTEXT=1))

# For labs/emu/bin/nvcc-emu: builds the runtime, then prints it and the libraries it needs.
.PHONY: emu-runtime
emu-runtime: $(EMU_LIB)
	@echo $(abspath $(EMU_LIB)) $(EMU_LDFLAGS)

# ---- Tests: GoogleTest suites written as .cu files, built the way student code is (rewrite,
# then g++), into one binary; plus tiny programs built with ASan whose reports a test reads.
EMU_TEST_OUT     := build/emu/tests
EMU_TEST_SRCS    := $(wildcard tests/emu/*_test.cu)
EMU_TEST_OBJS    := $(patsubst tests/emu/%.cu,$(EMU_TEST_OUT)/obj/%.o,$(EMU_TEST_SRCS))
EMU_ASAN_PROGS   := $(patsubst tests/emu/asan/%.cu,$(EMU_TEST_OUT)/asan/%,$(wildcard tests/emu/asan/*.cu))
EMU_TEST_FLAGS    = -O1 -Ilabs/common -Itests/emu -Xcompiler -Wall,-Wno-unused-variable \
                    -DEMU_TEST_PROGRAMS='"$(abspath $(EMU_TEST_OUT))"' -DEMU_REPO_ROOT='"$(abspath .)"'

GTEST_BINS += $(EMU_TEST_OUT)/emu_tests

$(EMU_TEST_OUT)/emu_tests: $(EMU_TEST_OBJS) $(EMU_PLAIN_LIB) $(EMU_ASAN_PROGS)
	$(EMU_NVCC) $(EMU_TEST_FLAGS) $(EMU_TEST_OBJS) --emu-runtime=$(EMU_PLAIN_LIB) -o $@ $(GTEST_LIBS)

# The same suite on ucontext fibers (the fallback where Boost.Context is missing; the test
# objects do not depend on the backend), so that every make test covers both.
GTEST_BINS += $(EMU_TEST_OUT)/emu_tests_ucontext
$(EMU_TEST_OUT)/emu_tests_ucontext: $(EMU_TEST_OBJS) $(EMU_OUT)/plain-ucontext/libcudaemu.a $(EMU_ASAN_PROGS)
	$(call emu_nvcc,ucontext) $(EMU_TEST_FLAGS) $(EMU_TEST_OBJS) --emu-runtime=$(EMU_OUT)/plain-ucontext/libcudaemu.a \
	    -o $@ $(GTEST_LIBS)

$(EMU_TEST_OUT)/obj/%.o: tests/emu/%.cu $(EMU_BUILD_INPUTS) \
                         $(wildcard tests/emu/*.h)
	@mkdir -p $(@D)
	$(EMU_NVCC) $(EMU_TEST_FLAGS) -c $< -o $@

$(EMU_TEST_OUT)/asan/%: tests/emu/asan/%.cu $(EMU_ASAN_LIB) $(EMU_BUILD_INPUTS)
	@mkdir -p $(@D)
	$(EMU_NVCC) --asan -O1 $< --emu-runtime=$(EMU_ASAN_LIB) -o $@

# ---- The benchmark (not a test): fiber switch cost, a barrier-heavy kernel, increment at 2^20,
# a tiled product, each plain and under EMU_RACECHECK=1; then the race detector's cost on the
# labs' public cases (racecheck_labs.py, which builds and grades the reference solutions).
# With Boost.Context, the fiber figures follow once more with the ucontext fallback's build.
EMU_BENCH_OUT = build/emu/bench$(EMU_FIBER_SUFFIX)
.PHONY: emu-bench emu-bench-fibers
emu-bench: $(EMU_BENCH_OUT)/emu_bench
	@EMU_SCHEDULE= ./$<
	@$(if $(EMU_FIBER_SUFFIX),,$(MAKE) -s --no-print-directory EMU_FIBER=ucontext emu-bench-fibers)
	@EMU_SCHEDULE= $(EMU_PYTHON) $(EMU_DIR)/bench/racecheck_labs.py
emu-bench-fibers: $(EMU_BENCH_OUT)/emu_bench
	@echo "--- the same with the ucontext fallback (where Boost.Context is missing)"
	@EMU_SCHEDULE= ./$< --fibers

EMU_BENCH_SRCS := $(wildcard $(EMU_DIR)/bench/*.cu $(EMU_DIR)/bench/*.cpp)
$(EMU_BENCH_OUT)/emu_bench: $(EMU_BENCH_SRCS) $(EMU_DIR)/bench/bench.h $(EMU_PLAIN_LIB) $(EMU_BUILD_INPUTS)
	@mkdir -p $(@D)
	$(EMU_NVCC) -O2 -I$(EMU_DIR)/src -I$(EMU_DIR)/bench $(EMU_FIBER_FLAGS) $(EMU_BENCH_SRCS) \
	    --emu-runtime=$(EMU_PLAIN_LIB) -o $@
