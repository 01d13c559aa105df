#!/bin/bash
# Runs one lab program on a GPU node of a Grid Engine cluster (SGE, Son of Grid Engine, Altair
# Grid Engine): builds your code (make <lab>), then runs the program once. The modern form of the
# Lonestar script in [Hochberg 2012] (section 2.2.3). Copy it, edit the two lines marked
# EDIT, and submit it from the kit's top folder (where the Makefile is):
#   cp jobs/sge/run-lab.sh my-run.sh      # edit LAB and RUN in my-run.sh
#   qsub my-run.sh                        # qstat shows it; the output: labkit-run.o<job id>
# Each directive's comment is on the line above it: not every Grid Engine takes one after it.
#
# the shell that runs this script
#$ -S /bin/bash
# inherit the submission environment (PATH, loaded modules)
#$ -V
# start in the folder you submitted from: the kit's top folder
#$ -cwd
# the job's name
#$ -N labkit-run
# stderr into stdout
#$ -j y
# the output file: labkit-run.o<job id>
#$ -o $JOB_NAME.o$JOB_ID
# the GPU queue (ask your cluster's admins for its name)
#$ -q gpu
# one GPU: the resource's name is the site's own (gpu, gpus, ngpus): qconf -sc lists them
#$ -l gpu=1
# wall time: the job is killed past it
#$ -l h_rt=00:10:00
# an email at the beginning and end of the job, as in the seed's script: delete one '#' of each
##$ -M you@example.edu
##$ -m be

LAB=increment                                  # EDIT: the lab
RUN="increment --n 1000000 --block 256"        # EDIT: the program and its arguments
MODULES=""      # modules the node needs, e.g. "cuda/12.4" ("" for none): your course says which
KIT="${SGE_O_WORKDIR:-$PWD}"                   # the kit's top folder: where you submitted from

set -euo pipefail
cd "$KIT"
if [ ! -f Makefile ] || [ ! -d "labs/$LAB" ]; then
    echo "error: no lab '$LAB' in $KIT: submit from the kit's top folder (where the Makefile is)" >&2
    exit 2
fi
if [ -n "$MODULES" ]; then module load $MODULES; fi
echo "job ${JOB_ID:-?} on $(hostname): $(nvidia-smi -L 2>/dev/null | head -n 1 || echo 'nvidia-smi not found')"
make "$LAB"
read -r -a ARGV <<< "$RUN"
set -x
"./build/starter/$LAB/${ARGV[0]}" "${ARGV[@]:1}"
