#!/usr/bin/env bash
# An MPI generation killed on one rank (SIGKILL at its KILL_AT-th kill point, solver/workdir.hpp
# kill_point) ends the whole job; the same command then resumes from the ranks' work
# directories and writes the same table, byte for byte, as the single-process generator.
# With EXPECT_RUNS=1 the killed rank must have left sorted runs of its enumeration (run-*.keys:
# killed mid-spill), so that the test fails rather than quietly kills elsewhere when the kill
# points move.
# Usage: resume.sh KONANE MPIRUN RANKS KILL_RANK KILL_AT BOARD [GENERATE OPTIONS...]
set -euo pipefail
konane=$1 mpirun=$2 np=$3 kill_rank=$4 kill_at=$5
shift 5
dir=$(mktemp -d "${TMPDIR:-/tmp}/konane-mpi-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$konane" generate "$@" -j 1 -q -o "$dir/one.kbt" > /dev/null
set +e
timeout 300 "$mpirun" --allow-run-as-root --oversubscribe -np "$np" bash -c '
    if [ "${OMPI_COMM_WORLD_RANK:-0}" = "$1" ]; then export KONANE_KILL_AT=$2; fi
    shift 2; exec "$@"' _ "$kill_rank" "$kill_at" \
    "$konane" generate "$@" -j 1 -q -o "$dir/mpi.kbt" --work "$dir/work" > "$dir/first.out" 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
  echo "FAIL: the killed run ended with status $rc (expected a failure, not success or a hang)" >&2
  cat "$dir/first.out" >&2
  exit 1
fi
if [ -e "$dir/mpi.kbt" ]; then
  echo "FAIL: the killed run left a table" >&2
  exit 1
fi
if [ ! -d "$dir/work/rank-$kill_rank-of-$np" ]; then
  echo "FAIL: no work directory of rank $kill_rank was kept" >&2
  exit 1
fi
if [ "${EXPECT_RUNS:-0}" = 1 ]; then
  runs=$(find "$dir/work/rank-$kill_rank-of-$np" -name 'run-*.keys' | wc -l)
  if [ "$runs" -lt 2 ]; then
    echo "FAIL: rank $kill_rank was not killed mid-spill ($runs sorted runs left): move KILL_AT" >&2
    ls "$dir/work/rank-$kill_rank-of-$np" >&2
    exit 1
  fi
  echo "killed mid-spill: rank $kill_rank left $runs sorted runs"
fi
timeout 300 "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
  "$konane" generate "$@" -j 1 -q -o "$dir/mpi.kbt" --work "$dir/work" > "$dir/second.out"
cmp "$dir/one.kbt" "$dir/mpi.kbt"
echo "killed at kill point $kill_at of rank $kill_rank (status $rc), resumed: same file"
cat "$dir/second.out"
