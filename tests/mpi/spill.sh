#!/usr/bin/env bash
# Every rank's enumeration spills its waiting children as sorted runs and merges them back
# (issue 22): with a budget that leaves them almost no room, 1 to 3 ranks write the
# single-process generator's table, byte for byte, and every rank reports runs it spilled.
# Usage: spill.sh KONANE MPIRUN BOARD [GENERATE OPTIONS...]
set -euo pipefail
konane=$1 mpirun=$2
shift 2
dir=$(mktemp -d "${TMPDIR:-/tmp}/konane-mpi-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$konane" generate "$@" -j 1 -q -o "$dir/one.kbt" > /dev/null
for np in 1 2 3; do
  "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
    "$konane" generate "$@" -j 1 -q --json -o "$dir/np$np.kbt" --work "$dir/np$np.work" \
    > "$dir/np$np.json"
  if ! cmp "$dir/one.kbt" "$dir/np$np.kbt"; then
    echo "FAIL: $* with $np ranks differs from the single-process table" >&2
    exit 1
  fi
  runs=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(" ".join(str(r["enumerate_runs"]) for r in j["by_rank"]))' "$dir/np$np.json")
  for r in $runs; do
    if [ "$r" -lt 2 ]; then
      echo "FAIL: $* with $np ranks: a rank spilled $r sorted runs (runs per rank: $runs)" >&2
      exit 1
    fi
  done
  if [ -e "$dir/np$np.work" ]; then
    echo "FAIL: $* with $np ranks left its work directory" >&2
    exit 1
  fi
  echo "$* with $np ranks: same file, sorted runs spilled per rank: $runs"
done
