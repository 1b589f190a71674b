#!/usr/bin/env bash
# The proof manager over MPI (`mpirun -np N konane prove`): with 1, 2 and 4 ranks (rank 0 the
# manager, the others its workers), and worker ranks of 2 and 3 search threads, every opening
# gets the verdict of the single-process proof search and a certificate `konane check-proof`
# verifies; a job stopped (SIGTERM) mid-run resumes
# under another number of ranks (of two threads), from a copy of its work directory, to the same
# verdict.
# Usage: prove.sh KONANE MPIRUN BOARD RULES LEAF_NODES
set -euo pipefail
konane=$1 mpirun=$2 board=$3 rules=$4 leaf=$5
dir=$(mktemp -d "${TMPDIR:-/tmp}/konane-mpi-prove.XXXXXX")
trap 'rm -rf "$dir"' EXIT
winner() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(j.get("board_winner", j.get("winner")))'; }
want=$("$konane" openings --board "$board" --rules "$rules" --search --memory 16M --json -q | winner)
echo "$board $rules: the proof search says $want wins"
# NP or NP:THREADS (worker ranks of THREADS search threads each, sharing their rank's table).
for spec in 1 2 4 3:2 2:3; do
  np=${spec%%:*} threads=1
  [ "$spec" != "$np" ] && threads=${spec#*:}
  got=$("$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$konane" prove --board "$board" \
    --rules "$rules" --work "$dir/np$spec" --leaf-nodes "$leaf" --memory 16M \
    --rank-threads "$threads" --certificate "$dir/np$spec.proof" --json -q | winner)
  checked=$("$konane" check-proof "$dir/np$spec.proof" --json -q | winner)
  if [ "$got" != "$want" ] || [ "$checked" != "$want" ]; then
    echo "FAIL: $np ranks of $threads threads: prove says $got, its certificate $checked, the search $want" >&2
    exit 1
  fi
  echo "$np ranks of $threads search threads: $got wins, certificate checked"
done
# Stopped by SIGTERM after a moment (mpirun passes it to every rank), then resumed on a copy
# with another number of ranks until it is decided.
work="$dir/stopped"
timeout -s TERM 1 "$mpirun" --allow-run-as-root --oversubscribe -np 3 "$konane" prove \
  --board "$board" --rules "$rules" --work "$work" --leaf-nodes 1 --memory 1M --checkpoint 0 \
  -q --json > /dev/null 2>&1 || true
if [ ! -f "$work/tree" ]; then
  echo "FAIL: the stopped job left no tree in $work" >&2
  exit 1
fi
cp -r "$work" "$dir/moved"
got=$("$mpirun" --allow-run-as-root --oversubscribe -np 2 "$konane" prove --work "$dir/moved" \
  --rank-threads 2 --certificate "$dir/moved.proof" --json -q | winner)
checked=$("$konane" check-proof "$dir/moved.proof" --json -q | winner)
if [ "$got" != "$want" ] || [ "$checked" != "$want" ]; then
  echo "FAIL: resumed: prove says $got, its certificate $checked, the search $want" >&2
  exit 1
fi
echo "stopped under 3 ranks, resumed from a copy under 2: $got wins, certificate checked"
