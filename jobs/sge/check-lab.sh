#!/bin/bash
# Grades your code for one lab on a GPU node of a Grid Engine cluster (SGE, Son of Grid Engine,
# Altair Grid Engine): `make check` builds it and runs every public testcase. The modern form of
# the Lonestar script in [Hochberg 2012] (section 2.2.3). Copy it, edit the two lines
# marked EDIT, and submit it from the kit's top folder (where the Makefile is):
#   cp jobs/sge/check-lab.sh my-check.sh      # edit LAB and CHECK in my-check.sh
#   qsub my-check.sh                          # the verdicts: labkit-check.o<job id>
# The grader's own budget for a lab, its worst case (every run at its time limit), is
# `python3 -m grader budget LAB --gpus 1`; to ask for it
# (it wins over the h_rt line below):
#   qsub -l h_rt=$(python3 -m grader budget LAB --gpus 1 --seconds) my-check.sh
# Each directive's comment is on the line above it: not every Grid Engine takes one after it.
#
# the shell that runs this script
#$ -S /bin/bash
# inherit the submission environment (PATH, loaded modules)
#$ -V
# start in the folder you submitted from: the kit's top folder
#$ -cwd
# the job's name
#$ -N labkit-check
# stderr into stdout
#$ -j y
# the output file: labkit-check.o<job id>
#$ -o $JOB_NAME.o$JOB_ID
# the GPU queue (ask your cluster's admins for its name)
#$ -q gpu
# one GPU: the resource's name is the site's own (gpu, gpus, ngpus): qconf -sc lists them
#$ -l gpu=1
# wall time: the build plus every testcase
#$ -l h_rt=00:20:00

LAB=increment          # EDIT: the lab
CHECK=""               # EDIT: more for make check: "GRADER_ARGS='--cases all'" adds the large cases
MODULES=""             # modules the node needs, e.g. "cuda/12.4" ("" for none): your course says which
KIT="${SGE_O_WORKDIR:-$PWD}"       # the kit's top folder: where you submitted from

set -euo pipefail
cd "$KIT"
if [ ! -f Makefile ] || [ ! -d "labs/$LAB" ]; then
    echo "error: no lab '$LAB' in $KIT: submit from the kit's top folder (where the Makefile is)" >&2
    exit 2
fi
if [ -n "$MODULES" ]; then module load $MODULES; fi
echo "job ${JOB_ID:-?} on $(hostname): $(nvidia-smi -L 2>/dev/null | head -n 1 || echo 'nvidia-smi not found')"
echo "the grader's budget for lab $LAB on one GPU: $(python3 -m grader budget "$LAB" --gpus 1 --seconds 2>/dev/null || echo ?) s"
eval "make check LAB=$LAB $CHECK"
