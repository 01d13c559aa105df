# The CUDA lab kit: the one entry point. `make help` lists every target and variable.
#
# A lab is a folder labs/<lab>/ with a lab.toml; nothing here names a lab. Each student file
# <src>/<lab>/<prog>.c is copied to build/.../<lab>/<prog>.cu (editors highlight .c, nvcc wants
# .cu) and linked with the lab's trusted harness (labs/<lab>/*.cpp, *.cu) and labs/common into
# the program build/.../<lab>/<prog>.

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:

# ---- what to build ---------------------------------------------------------------------
LAB    ?=
SOL    ?=
SUB    ?=
EMU    ?=
ASAN   ?=
PYTHON ?= python3

# Goals that build or run nothing of a lab: they neither need nvcc nor announce the emulator.
NO_BUILD_GOALS := help deps test pytest gtests clean figures handouts dist-student dist-instructor

# The student edition has no solutions/: SOL=1 there says so in one line, before anything else.
ifneq ($(SOL),)
  ifeq ($(wildcard $(or $(SRC_ROOT),solutions)/.),)
    ifneq ($(filter-out $(NO_BUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
      $(error SOL=1 builds the reference solutions, and this copy of the kit has no $(or $(SRC_ROOT),solutions)/ (the student edition: see EDITION.md); leave SOL=1 out to build and check your own code, e.g. make check LAB=$(or $(LAB),increment))
    endif
  endif
endif

# EMU: 1 (or any value but 0) builds for the CPU emulator; 0 forces the GPU build; unset, the
# emulator is used where nvidia-smi finds no GPU, and said so. From here on EMU is 1 or empty,
# so every test below is $(if $(EMU),...) or ifeq ($(EMU),).
# GPU_CC given (the grader asks nvidia-smi once and passes it to every make it runs) is not asked again.
ifndef GPU_CC
  GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. ')
endif
# The build folder says what is in it: build/emu-<flavor> for EMU=1, build/<flavor> for what this
# machine runs by default (the GPU build, or the emulator's where there is no GPU, so the
# handouts' ./build/starter/... works as shown), build/gpu-<flavor> for EMU=0 without a GPU.
BUILD_PREFIX :=
ifeq ($(strip $(EMU)),0)
  override EMU :=
  EMU_FORCED_OFF := 1
  BUILD_PREFIX := $(if $(GPU_CC),,gpu-)
else ifneq ($(strip $(EMU)),)
  override EMU := 1
  BUILD_PREFIX := emu-
else ifeq ($(GPU_CC),)
  override EMU := 1
  ifeq ($(MAKELEVEL),0)
    ifneq ($(filter-out $(NO_BUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
      $(info note: no CUDA GPU found: building for the CPU emulator (EMU=1); EMU=0 forces the GPU build)
    endif
  endif
endif

LABS := $(patsubst labs/%/lab.toml,%,$(wildcard labs/*/lab.toml))

# Where the student files come from: starter/ or solutions/ (SOL=1). SRC_ROOT/BUILD may be set
# directly (the grader does, for submissions its intake has checked and copied).
# SUB=path (a submission) is only for `make check` and `make submit`, and only ever reaches
# them as an environment variable: its text is the submission's name, so make must never expand
# it (a folder named 'x$(shell ...)' would run) nor a recipe splice it into a command.
override SUB := $(value SUB)
export SUB
ifneq ($(SOL),)
  FLAVOR   := solution
  SRC_ROOT ?= solutions
else
  FLAVOR   := starter
  SRC_ROOT ?= starter
endif
BUILD ?= build/$(BUILD_PREFIX)$(FLAVOR)$(if $(ASAN),-asan)

# ASAN=1 is the emulator's AddressSanitizer build: say where it goes; refuse it for the GPU build,
# where it would do nothing (compute-sanitizer is the GPU's tool).
ifneq ($(ASAN),)
  ifeq ($(MAKELEVEL),0)
    ifneq ($(filter-out $(NO_BUILD_GOALS) check bench submit,$(or $(MAKECMDGOALS),all)),)
      ifeq ($(EMU),)
        $(error ASAN=1 is for the CPU emulator's build (make <lab> EMU=1 ASAN=1, into build/emu-$(FLAVOR)-asan/); on a GPU, find bad memory accesses with compute-sanitizer ./build/$(FLAVOR)/<lab>/<program> ..., or python3 -m grader check <lab>, which runs it)
      else
        $(info note: ASAN=1: the AddressSanitizer build, in $(BUILD)/ (run ./$(BUILD)/<lab>/<program> ...))
      endif
    endif
  endif
endif

# ---- toolchain ---------------------------------------------------------------------------
CUDA_PATH ?= /usr/local/cuda
NVCC      ?= $(firstword $(wildcard $(CUDA_PATH)/bin/nvcc) $(shell command -v nvcc 2>/dev/null) nvcc)
CXX       := g++
GTEST_LIBS ?= -lgtest -lgtest_main -pthread

# ARCH: the GPU's own (e.g. sm_90 on an H100) when nvidia-smi finds one; otherwise a
# compile-only default covering Ampere and Hopper, plus PTX for newer cards.
ifneq ($(GPU_CC),)
  ARCH ?= sm_$(GPU_CC)
endif
ifneq ($(ARCH),)
  ARCH_FLAGS := -arch=$(ARCH)
else
  ARCH_FLAGS := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
endif
NVCCFLAGS ?= -O3 -lineinfo
# DEFINES: extra preprocessor defines for the lab's code, the same in the GPU and emulator builds
# (e.g. DEFINES='-DALIGNMENT=32'); `make clean` first, since objects do not depend on it.
DEFINES   ?=
ALL_NVCCFLAGS = -std=c++17 $(ARCH_FLAGS) $(NVCCFLAGS) $(DEFINES) -Xcompiler -Wall -Ilabs/common $(LAB_INCLUDE)

# Goals that build without nvcc (plain C or host C++); emu.mk and labs/<lab>/lab.mk add theirs.
HOST_GOALS := emu-bench emu-bench-fibers emu-runtime
LMS_GOALS  := gradescope prairielearn github-classroom  # grading in an LMS: see the end of this file
include labs/emu/emu.mk
# The emulator build goes through the drop-in compiler (labs/emu/bin/nvcc-emu), the one place
# that knows how to compile for the emulator; the runtime is emu.mk's (EMU_LIB).
ALL_EMUFLAGS = $(EMU_OPT) $(if $(ASAN),--asan) $(DEFINES) -Ilabs/common $(LAB_INCLUDE) -DLABKIT_EMU=1

# Per-lab build settings from each lab.toml's [build] table (LAB_<lab>_NVCCFLAGS, _LDLIBS, ...).
# The grader gives the graded lab's on the command line instead (LAB_SETTINGS=given), from the
# lab.toml it has read: no Python of the grader's runs inside the build sandbox.
ifneq ($(LAB_SETTINGS),given)
build/labs.mk: $(wildcard labs/*/lab.toml) grader/makefrag.py
	@mkdir -p $(@D)
	@$(PYTHON) -m grader.makefrag $(LABS) > $@
include build/labs.mk
endif

# A lab may add its own targets (tools, generators) in labs/<lab>/lab.mk, e.g. `make cycleProgs`
# of the fw lab; the goals it adds to HOST_GOALS are plain C and build without nvcc.
include $(wildcard labs/*/lab.mk)

# ---- compiling ---------------------------------------------------------------------------
COMMON_SRCS := $(wildcard labs/common/*.cpp labs/common/*.cu)
COMMON_OBJS := $(COMMON_SRCS:%=$(BUILD)/obj/%.o)

ifeq ($(EMU),)
  define compile_cuda
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $(EXTRA_NVCCFLAGS) -c $< -o $@
  endef
  LINK = $(NVCC) $(ALL_NVCCFLAGS) $(EXTRA_NVCCFLAGS) $^ -o $@ $(EXTRA_LDLIBS)
  TOOLCHAIN := $(NVCC)
else
  define compile_cuda
	@mkdir -p $(@D)
	$(EMU_NVCC) $(ALL_EMUFLAGS) $(EXTRA_EMUFLAGS) $(ORIGIN_EMUFLAGS) -c $< -o $@
  endef
  LINK = $(EMU_NVCC) $(ALL_EMUFLAGS) $(EXTRA_EMUFLAGS) $(filter %.o,$^) --emu-runtime=$(EMU_LIB) -o $@ $(EXTRA_EMU_LDLIBS)
  TOOLCHAIN := $(EMU_CXX)
  # A change to the rewriter or the emulator's headers changes what every object is made of.
  EMU_OBJ_DEPS := $(EMU_BUILD_INPUTS)
endif

# Harness and common sources: .cu and .cpp alike go through the CUDA compiler (or the
# emulator), so harness code may call the CUDA runtime. Under the emulator they are marked as the
# harness (-DCUDAEMU_HARNESS): the profile records that origin with each launch and copy they make,
# which is how the grader tells the kit's work from the student's (grader/work.py).
$(BUILD)/obj/%.cu.o: %.cu $(EMU_OBJ_DEPS)
	$(compile_cuda)
$(BUILD)/obj/%.cpp.o: %.cpp $(EMU_OBJ_DEPS)
	$(compile_cuda)
$(BUILD)/obj/%.cu.o $(BUILD)/obj/%.cpp.o: ORIGIN_EMUFLAGS := -DCUDAEMU_HARNESS
# Student files, copied from .c to .cu first.
$(BUILD)/%.o: $(BUILD)/%.cu $(EMU_OBJ_DEPS)
	$(compile_cuda)

# One lab's rules. $(1) is the lab id.
define lab_rules
$(1)_PROGRAMS := $$(basename $$(notdir $$(wildcard starter/$(1)/*.c)))
$(1)_SRC_DIR  := $$(if $$(wildcard $(SRC_ROOT)/$(1)/.),$(SRC_ROOT)/$(1),$(SRC_ROOT))
$(1)_HARNESS  := $$(patsubst %,$(BUILD)/obj/%.o,$$(wildcard labs/$(1)/*.cpp labs/$(1)/*.cu))
$(1)_BINS     := $$(addprefix $(BUILD)/$(1)/,$$($(1)_PROGRAMS))

.PHONY: $(1) $(1)-harness
$(1): $$($(1)_BINS)
# The trusted part of the lab's programs, which the grader builds outside its build sandbox,
# and its link tried on labs/common/link_check/ (a missing library is the grader's failure).
$(1)-harness: $$($(1)_HARNESS) $(COMMON_OBJS) $(if $(EMU),$(EMU_LIB)) $(BUILD)/$(1)/link-check
# Phony: tried on every harness build (a fraction of a second), since a library can go away.
.PHONY: $(BUILD)/$(1)/link-check
$(BUILD)/$(1)/link-check: $(BUILD)/obj/labs/common/link_check/link_check.cpp.o $(if $(EMU),$(EMU_LIB))
	@mkdir -p $$(@D)
	$$(LINK)

# The #line makes compiler errors and LAB_TODO messages name the student's own .c file.
$(BUILD)/$(1)/%.cu: $$($(1)_SRC_DIR)/%.c
	@mkdir -p $$(@D)
	{ echo '#line 1 "$$(patsubst $(CURDIR)/%,%,$$(abspath $$<))"'; cat $$<; } > $$@
$(BUILD)/$(1)/%.cu:
	@echo "error: $$($(1)_SRC_DIR)/$$*.c is missing: lab $(1) needs $$(addsuffix .c,$$($(1)_PROGRAMS))" >&2
	@false

$$($(1)_BINS): $(BUILD)/$(1)/%: $(BUILD)/$(1)/%.o $$($(1)_HARNESS) $(COMMON_OBJS) $(if $(EMU),$(EMU_LIB))
	$$(LINK)

$(BUILD)/$(1)/% $(BUILD)/obj/labs/$(1)/%: LAB_INCLUDE := -Ilabs/$(1)
$(BUILD)/$(1)/% $(BUILD)/obj/labs/$(1)/%: EXTRA_NVCCFLAGS := $$(LAB_$(1)_NVCCFLAGS)
$(BUILD)/$(1)/% $(BUILD)/obj/labs/$(1)/%: EXTRA_LDLIBS := $$(LAB_$(1)_LDLIBS)
$(BUILD)/$(1)/% $(BUILD)/obj/labs/$(1)/%: EXTRA_EMUFLAGS := $$(LAB_$(1)_EMU_CXXFLAGS)
$(BUILD)/$(1)/% $(BUILD)/obj/labs/$(1)/%: EXTRA_EMU_LDLIBS := $$(LAB_$(1)_EMU_LDLIBS)
endef
$(foreach lab,$(LABS),$(eval $(call lab_rules,$(lab))))

# ---- targets -----------------------------------------------------------------------------
.PHONY: all toolchain help check bench submit test deps gtests pytest lab-given clean
all: $(LABS)

# Fail early, with what to do, when the compiler is missing.
ifeq ($(EMU),)
  ifeq ($(shell command -v $(NVCC) 2>/dev/null),)
    $(if $(filter-out $(NO_BUILD_GOALS) $(LMS_GOALS) $(HOST_GOALS),$(or $(MAKECMDGOALS),all)),\
      $(error nvcc not found (NVCC=$(NVCC)) for the GPU build$(if $(EMU_FORCED_OFF), that EMU=0 asks for). Install the CUDA toolkit and set CUDA_PATH=/path/to/cuda or NVCC=/path/to/nvcc; without a GPU, build for the CPU emulator with EMU=1))
  endif
endif

lab-given:
	@$(if $(LAB),,echo "error: say which lab: LAB=<lab>, one of: $(LABS)" >&2; exit 2)
	@$(if $(filter $(LAB),$(LABS)),,echo "error: LAB=$(LAB) names no lab; the labs are: $(LABS)" >&2; exit 2)

GRADER_DEVICE = $(if $(EMU),--emu,--gpu)
GRADER_FLAVOR = $(if $(SUB),--submission "$$SUB",$(if $(SOL),--solution)) $(GRADER_DEVICE) $(if $(ASAN),--asan)

# Build and grade one lab on its public testcases; prints the verdict table.
# The emulator's profile of the lab's first public case (CASE=name for another): per kernel and
# per source line, requests, sectors per request, bank conflicts, as ncu shows them (grader/profile.py).
.PHONY: profile
profile: lab-given
	$(PYTHON) -m grader.profile $(LAB) $(if $(SUB),--submission "$$SUB",$(if $(SOL),--solution)) $(if $(CASE),--case $(CASE))

check: lab-given
	$(PYTHON) -m grader check $(LAB) $(GRADER_FLAVOR) $(GRADER_ARGS)

# The lab's benchmark against the machine's own ceiling, one run: the reference solution, or,
# where solutions/ is absent (the student edition), the student's own code.
bench: lab-given
	$(PYTHON) -m grader bench $(LAB) $(GRADER_DEVICE) $(if $(RECORD),--record)

# A <lab>-submission.tar.gz of the student's files with a manifest.
submit: lab-given
	$(PYTHON) -m grader submit $(LAB) $(if $(SUB),--from "$$SUB")

# Everything a test run needs that a fresh machine may lack (Debian and PyPI packages).
deps:
	@$(PYTHON) -m grader.deps

GTEST_BINS += build/tests/common_tests
COMMON_TEST_SRCS := $(wildcard tests/common/*.cpp)
COMMON_HOST_SRCS := $(wildcard labs/common/*.cpp)
build/tests/common_tests: $(COMMON_TEST_SRCS) $(COMMON_HOST_SRCS) $(wildcard labs/common/*.h)
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O1 -g -Wall -Ilabs/common $(COMMON_TEST_SRCS) $(COMMON_HOST_SRCS) -o $@ $(GTEST_LIBS)

gtests: $(GTEST_BINS)
	@set -e; for t in $(GTEST_BINS); do echo "== $$t"; ./$$t --gtest_brief=1; done

pytest:
	$(PYTHON) -m pytest -q

# All C++ (GoogleTest) and grader (pytest) tests; GPU-only tests say they are skipped. The test
# programs build on every core (make test runs in CI's time).
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) gtests
	@$(MAKE) --no-print-directory pytest

clean:
	rm -rf build

# ---- handouts and the editions of the kit ------------------------------------------------
# Figures come from handouts/figures/figures.toml (testcase files drawn with Graphviz, plots of
# the labs' CSVs); handouts render with pandoc into build/handouts/. The student edition leaves
# out solutions, answers and the kit's own tests (authoring/dist.py says exactly what).
# Measured figures quoted in the text are rewritten first from their recorded runs
# (handouts/figures/<lab>-bench.toml, written by make bench RECORD=1: authoring/quoted.py).
.PHONY: figures handouts dist-student dist-instructor
figures:
	$(PYTHON) -m authoring.quoted
	$(PYTHON) -m authoring.figures --out build/handouts/figures

handouts: figures
	$(PYTHON) -m authoring.handouts --out build/handouts

# make -s: the tarball's name (and any warning) alone.
dist-student dist-instructor: dist-%:
	$(PYTHON) -m authoring.dist $* --out build/dist $(if $(findstring s,$(firstword -$(MAKEFLAGS))),--quiet)
# ---- end of handouts and editions --------------------------------------------------------

# ---- grading in an LMS (lms/, docs/lms.md) -----------------------------------------------
# Gradescope's autograder zip, PrairieLearn's question and image, GitHub Classroom's template
# repository, for one lab, graded under the CPU emulator. SECRET_FILE=path adds hidden cases
# (Gradescope, PrairieLearn; the bundle then holds the secret); IMAGE names PrairieLearn's image.
.PHONY: $(LMS_GOALS)
$(LMS_GOALS): lab-given
	$(PYTHON) -m lms $@ $(LAB) $(if $(SECRET_FILE),--secret-file '$(SECRET_FILE)') $(if $(IMAGE),--image '$(IMAGE)')

help:
	@echo "The CUDA lab kit. Labs: $(LABS)"
	@echo
	@echo "Targets:"
	@echo "  make                     build every lab from starter/ into build/"
	@echo "  make <lab>               build one lab (e.g. make increment)"
	@echo "  make check LAB=<lab>     build, then grade on the public testcases"
	@echo "  make bench LAB=<lab>     the benchmark against the GPU's ceiling: the reference solution, or your own code in the student edition"
	@echo "  make bench LAB=<lab> RECORD=1  the same, its figures recorded in handouts/figures/<lab>-bench.toml and every quoted copy rewritten"
	@echo "  make submit LAB=<lab>    package <lab>-submission.tar.gz from starter/<lab> (or SUB=folder)"
	@echo "  make test                every GoogleTest and pytest suite (installs what is missing)"
	@echo "  make deps                install what the tests need (Debian and PyPI packages)"
	@echo "  make handouts            render handouts/*.md with their figures into build/handouts/"
	@echo "  make figures             only the figures (handouts/figures/figures.toml)"
	@echo "  make dist-student        build/dist/cuda-lab-kit-student.tar.gz: no solutions or answers"
	@echo "  make dist-instructor     build/dist/cuda-lab-kit-instructor.tar.gz: everything"
	@echo "  make gradescope LAB=<lab>        build/gradescope/<lab>-autograder.zip (SECRET_FILE=path: hidden cases)"
	@echo "  make prairielearn LAB=<lab>      build/prairielearn/<lab>/: question, tests, image (IMAGE=name)"
	@echo "  make github-classroom LAB=<lab>  build/github-classroom/<lab>/: template repo with the workflow"
	@echo "  make clean               remove build/"
	@echo
	@echo "Variables:"
	@echo "  SOL=1                    build from solutions/ instead of starter/"
	@echo "  SUB=<folder|.tar.gz>     with check: grade a submission; with submit: package a folder"
	@echo "  EMU=1                    build for the CPU emulator (no GPU needed); the default where"
	@echo "                           nvidia-smi finds no GPU. EMU=0 forces the GPU build"
	@echo "  ASAN=1                   with EMU=1: AddressSanitizer on"
	@echo "  ARCH=sm_90               GPU architecture (found from nvidia-smi when there is a GPU)"
	@echo "  DEFINES='-DNAME=value'   extra defines for both builds (GPU and EMU=1), e.g."
	@echo "                           make clean; make fw DEFINES='-DALIGNMENT=32'"
	@echo "  NVCC, CUDA_PATH, NVCCFLAGS   the CUDA compiler, its install folder, its flags (GPU build only)"
	@echo "  EMU_OPT=-O0              the emulator's optimization of your kernels (EMU=1 only)"
	@echo "  GRADER_ARGS='...'        extra options for the grader (python3 -m grader check --help)"
	@echo "Labs' own targets (labs/<lab>/lab.mk): $(filter-out emu-bench emu-bench-fibers emu-runtime,$(HOST_GOALS))"
	@echo "Emulator benchmark: make emu-bench"
	@echo "Now: ARCH=$(or $(ARCH),default) NVCC=$(NVCC) BUILD=$(BUILD)"
