#!/usr/bin/env bash
# The MPI generator writes the same table file, byte for byte, as the single-process generator,
# for 1 to 4 ranks (issue 22). Usage: same_file.sh KONANE MPIRUN BOARD [GENERATE OPTIONS...]
# Runs in a fresh temporary directory, removed at the end.
set -euo pipefail
konane=$1 mpirun=$2
shift 2
dir=$(mktemp -d "${TMPDIR:-/tmp}/konane-mpi-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$konane" generate "$@" -j 1 -q -o "$dir/one.kbt" > /dev/null
for np in 1 2 3 4; do
  "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
    "$konane" generate "$@" -j 1 -q -o "$dir/np$np.kbt" --work "$dir/np$np.work" > "$dir/np$np.out"
  if ! cmp "$dir/one.kbt" "$dir/np$np.kbt"; then
    echo "FAIL: $* with $np ranks differs from the single-process table" >&2
    exit 1
  fi
  # The work directories are removed once the table is written.
  if [ -e "$dir/np$np.work" ]; then
    echo "FAIL: $* with $np ranks left its work directory" >&2
    exit 1
  fi
  echo "$* with $np ranks: same file ($(stat -c %s "$dir/np$np.kbt") bytes)"
done
