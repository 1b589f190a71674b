#!/usr/bin/env bash
# A worker rank that does not answer (frozen with SIGSTOP) cannot hold a proof-manager job: when
# the run stops (--time, or SIGTERM to rank 0's process) the frozen rank has --stop-grace
# seconds to answer, then its leaf is given back, the tree saved and the job ended (MPI_Abort);
# the saved tree resumes. 7x7: no leaf is decided within the test's seconds.
# Usage: stop_grace.sh KONANE MPIRUN
set -euo pipefail
konane=$1 mpirun=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/konane-mpi-stop-grace.XXXXXX")
frozen=""
cleanup() {
  # The frozen rank, should the job have left it: ended (SIGKILL works on a stopped process).
  [ -n "$frozen" ] && kill -KILL "$frozen" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
# The pid of the konane process of rank $1 of this test's job (Open MPI's OMPI_COMM_WORLD_RANK, as
# in the other scripts here), or "".
rank_pid() {
  local p
  for p in $(pgrep -f "konane prove --board 7x7" || true); do
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      if grep -q "$dir" "/proc/$p/cmdline" 2>/dev/null; then echo "$p"; return; fi
    fi
  done
}
# how: "time" (the run's own --time) or "term" (SIGTERM to rank 0's process)
for how in time term; do
  work="$dir/$how"
  start=$(date +%s)
  extra=""
  [ "$how" = time ] && extra="--time 4"
  # Leaves that take far longer than the test: every worker is searching when the run stops.
  "$mpirun" --allow-run-as-root --oversubscribe -np 3 "$konane" prove --board 7x7 --work "$work" \
    --leaf-nodes 100000000000 --memory 16M --stop-grace 3 $extra --json \
    > "$dir/$how.out" 2> "$dir/$how.err" &
  job=$!
  frozen=""
  for _ in $(seq 100); do
    frozen=$(rank_pid 1)
    [ -n "$frozen" ] && break
    sleep 0.1
  done
  if [ -z "$frozen" ]; then
    echo "FAIL ($how): no process of rank 1 found" >&2
    exit 1
  fi
  # Frozen once the run is under way (rank 0 names its work directory once every rank has its
  # setup; a moment later the leaves are handed out), not in MPI's start.
  for _ in $(seq 300); do
    grep -q "work directory" "$dir/$how.err" && break
    sleep 0.1
  done
  sleep 1
  kill -STOP "$frozen"
  if [ "$how" = term ]; then
    # To rank 0 itself (mpirun would continue the frozen rank before it signals it).
    sleep 1
    kill -TERM "$(rank_pid 0)"
  fi
  # At most 4 s of run, 3 s of grace and the job's end: far under 60 s.
  waited=0
  while kill -0 "$job" 2>/dev/null && [ "$waited" -lt 60 ]; do
    sleep 1
    waited=$((waited + 1))
  done
  if kill -0 "$job" 2>/dev/null; then
    echo "FAIL ($how): the job still runs after 60 s with rank 1 frozen" >&2
    ps -eo pid,stat,etime,args | grep -E "[k]onane prove|[m]pirun|[m]piexec" >&2 || true
    cat "$dir/$how.err" >&2
    kill -KILL "$job" 2>/dev/null || true
    exit 1
  fi
  code=0
  wait "$job" || code=$?
  took=$(($(date +%s) - start))
  kill -KILL "$frozen" 2>/dev/null || true
  frozen=""
  if [ "$code" -eq 0 ]; then
    echo "FAIL ($how): the job with a frozen rank ended with status 0" >&2
    exit 1
  fi
  if ! grep -q "did not answer" "$dir/$how.err"; then
    echo "FAIL ($how): no word of the rank that did not answer:" >&2
    cat "$dir/$how.err" >&2
    exit 1
  fi
  if ! grep -q '"lost_workers": 1' "$dir/$how.out"; then
    echo "FAIL ($how): the output does not count the lost worker:" >&2
    cat "$dir/$how.out" >&2
    exit 1
  fi
  # The saved tree resumes (threads only here, for a second).
  if ! "$konane" prove --work "$work" --time 1 --memory 16M -q --json > "$dir/$how.resumed"; then
    echo "FAIL ($how): the saved tree does not resume" >&2
    exit 1
  fi
  echo "$how: ended ${took} s after it started (status $code) with rank 1 frozen; the tree resumes"
done
