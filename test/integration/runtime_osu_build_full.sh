#!/bin/sh
# runtime_osu_build.sh with both other MPIs (OSU_BUILD_MPIS="openmpi mpich"): CI's make check
# builds and runs the benchmarks with Open MPI only; make check-long runs this.
OSU_BUILD_MPIS="openmpi mpich"
export OSU_BUILD_MPIS
exec sh "$(dirname "$0")/runtime_osu_build.sh"
