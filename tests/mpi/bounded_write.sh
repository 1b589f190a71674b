#!/usr/bin/env bash
# The ranks write each layer from batches of their parts, never the whole layer (issue 22):
# with a budget so small that some layers come in several batches per rank, the MPI generator
# still writes the single-process generator's table, byte for byte, and leaves no spill file.
# Usage: bounded_write.sh KONANE MPIRUN RANKS BOARD [GENERATE OPTIONS...]
set -euo pipefail
konane=$1 mpirun=$2 np=$3
shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/konane-mpi-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$konane" generate "$@" -j 1 -q -o "$dir/one.kbt" > /dev/null
"$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
  "$konane" generate "$@" -j 1 -q --json --keep-work -o "$dir/mpi.kbt" --work "$dir/work" \
  > "$dir/mpi.json"
if ! cmp "$dir/one.kbt" "$dir/mpi.kbt"; then
  echo "FAIL: $* with $np ranks differs from the single-process table" >&2
  exit 1
fi
# More rounds of batches than layers: some layer came in several batches.
read -r rounds layers < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(j["write_rounds"], len(j["layers"]))' "$dir/mpi.json")
if [ "$rounds" -le "$layers" ]; then
  echo "FAIL: $* with $np ranks wrote $layers layers in $rounds rounds: no layer was batched" >&2
  exit 1
fi
# The spill files are anonymous: nothing but the rank's own files is left in its folder.
if find "$dir/work" -name '.konane-layer-spill.*' | grep -q .; then
  echo "FAIL: a spill file was left in the work directory" >&2
  exit 1
fi
echo "$* with $np ranks: same file, $layers layers written in $rounds rounds of batches"
