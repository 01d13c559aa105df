# The fw lab's own make targets, included by the top-level Makefile (labs/*/lab.mk).
#
#   make cycleProgs    build/tools/fw/makeDirCycle and makeUndirCycle, the module's cycle
#                      generators ([Hochberg 2012], section 2.2.1: "Type make cycleProgs
#                      to get two executables"); plain C, no CUDA needed.

FW_CYCLE_PROGS := build/tools/fw/makeDirCycle build/tools/fw/makeUndirCycle

.PHONY: cycleProgs
cycleProgs: $(FW_CYCLE_PROGS)
	@echo "cycle generators: $(FW_CYCLE_PROGS)"
	@echo "e.g. build/tools/fw/makeUndirCycle 10 > undircycle10.txt"

build/tools/fw/%: testcases/fw/tools/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -o $@ $<

HOST_GOALS += cycleProgs
