#!/usr/bin/env bash
# A rank that fails ends the whole MPI job at once with one clear error naming the rank and the
# cause, and a failure status, never a hang. Two causes: rank 1's work directory cannot be
# created (a file stands in its place), and rank 1 runs out of memory (ulimit -v).
# Usage: rank_fails.sh KONANE MPIRUN
set -euo pipefail
konane=$1 mpirun=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/konane-mpi-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
expect_failure() {  # NAME: checks $dir/out and the status in $rc
  local name=$1 pattern=$2
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
    echo "FAIL ($name): status $rc, expected a failure (124: the job hung)" >&2
    cat "$dir/out" >&2
    exit 1
  fi
  if ! grep -q "konane generate: rank 1 of 3: .*$pattern" "$dir/out"; then
    echo "FAIL ($name): no error naming rank 1 and the cause ($pattern)" >&2
    cat "$dir/out" >&2
    exit 1
  fi
  echo "$name: status $rc, $(grep -m1 'konane generate: rank 1 of 3' "$dir/out")"
}
mkdir -p "$dir/work"
touch "$dir/work/rank-1-of-3"
set +e
timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -np 3 \
  "$konane" generate 4x5 -j 1 -q -o "$dir/t.kbt" --work "$dir/work" > "$dir/out" 2>&1
rc=$?
set -e
expect_failure "work directory" "rank-1-of-3"
[ ! -e "$dir/t.kbt" ] || { echo "FAIL: a table was written" >&2; exit 1; }

# Out of memory: rank 1's address space is limited (ulimit -v) to a little more than MPI takes,
# so that the reservation of its batches' buffers (about 130 MB under --memory 8G) fails before
# any work. What MPI takes depends on the machine (its shared memory, and below some limit MPI
# falls back to other transports and still runs): the limit rises from 200 MB in steps of 20 MB
# until the failure comes from the generation.
found=0
for kb in $(seq 200000 20000 600000); do
  rm -rf "$dir/work"
  set +e
  timeout 300 "$mpirun" --allow-run-as-root --oversubscribe -np 3 bash -c '
      if [ "${OMPI_COMM_WORLD_RANK:-0}" = 1 ]; then ulimit -v "$1"; fi
      shift; exec "$@"' _ "$kb" \
    "$konane" generate 4x6 -j 1 -q -o "$dir/t.kbt" --work "$dir/work" --memory 8G > "$dir/out" 2>&1
  rc=$?
  set -e
  if [ "$rc" -eq 124 ]; then
    echo "FAIL (out of memory, ulimit -v $kb KiB): the job hung" >&2
    exit 1
  fi
  if grep -q "konane generate: rank 1 of 3" "$dir/out"; then found=1; break; fi
  rm -f "$dir/t.kbt"
done
if [ "$found" = 0 ]; then
  echo "FAIL (out of memory): no limit from 200 to 600 MB made rank 1 report a failure" >&2
  exit 1
fi
expect_failure "out of memory (ulimit -v $kb KiB)" "memory"
[ ! -e "$dir/t.kbt" ] || { echo "FAIL: a table was written" >&2; exit 1; }
