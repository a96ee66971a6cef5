# common.sh: sourced by the bench scripts: build phasor (BUILD_DIR, default build/openmpi),
# pick the launcher, and a median helper. Not a test: prints measurements.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mpi=${PHASOR_BENCH_MPI:-openmpi}
bdir=${BUILD_DIR:-$top/build/$mpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case "$mpi" in
  openmpi) mpicc=$(command -v mpicc.openmpi || command -v mpicc); mpirun=$(command -v mpirun.openmpi || command -v mpirun); mpirun_opts=(--oversubscribe) ;;
  mpich) mpicc=$(command -v mpicc.mpich); mpirun=$(command -v mpirun.mpich); mpirun_opts=() ;;
esac
"$top/scripts/install-deps.sh" --mpi="$mpi" --quiet
"$top/scripts/build.sh" "$bdir" MPICC="$mpicc"
shim="$bdir/.libs/libphasor.so"
phasor="$bdir/phasor"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# run_mpi NP SHIM(0|1) LOGDIR PROGRAM ARGS...: prints the program's stdout. With the shim,
# PHASOR_CALLSITE_DEPTH is passed on when set (unset: the shim's default).
run_mpi() {
  local np=$1 use=$2 dir=$3; shift 3
  if [ "$use" = 1 ]; then
    local depth=${PHASOR_CALLSITE_DEPTH:-}
    case "$mpi" in
      openmpi) "$mpirun" "${mpirun_opts[@]}" -np "$np" -x LD_PRELOAD="$shim" -x PHASOR_DIR="$dir" -x PHASOR_QUIET=1 \
                 ${depth:+-x PHASOR_CALLSITE_DEPTH="$depth"} "$@" ;;
      mpich) "$mpirun" -np "$np" -genv LD_PRELOAD "$shim" -genv PHASOR_DIR "$dir" -genv PHASOR_QUIET 1 \
               ${depth:+-genv PHASOR_CALLSITE_DEPTH "$depth"} "$@" ;;
    esac
  else
    "$mpirun" "${mpirun_opts[@]}" -np "$np" "$@"
  fi
}
