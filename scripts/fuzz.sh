#!/usr/bin/env bash
#   scripts/fuzz.sh [SECONDS [TARGET...]]
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz/ and runs
# every target (or each TARGET named, e.g. scenario_fuzz) for SECONDS
# (default 60), one after another, on a copy of its seed corpus: the
# committed corpus never changes. Prints executions, exec/s, corpus size and
# edge coverage per target; exits non-zero if any target found a crash,
# leak, timeout or out-of-memory input. Logs, grown corpora and crashing
# inputs stay in build-fuzz/fuzz-run/ (FUZZ_RUN_DIR=DIR: in DIR instead, so
# that two runs, e.g. one per core with different targets, can go at once).
# On a shared machine: nice -n 19 bash scripts/fuzz.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
targets=("${@:2}")
if [ ${#targets[@]} -eq 0 ]; then
  for source in fuzz/*_fuzz.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DPDBENCH_FUZZ=ON -DPDBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz --target fuzz_all -j "$(nproc)"

run="${FUZZ_RUN_DIR:-build-fuzz/fuzz-run}"
rm -rf "$run"
mkdir -p "$run/corpus" "$run/logs" "$run/crashes"
cp -r fuzz/corpus/. "$run/corpus/"
build-fuzz/fuzz/fuzz_seeds "$run/corpus"  # the code-made seeds, as this version writes them
# The targets write each input to a scratch file: on tmpfs when there is one,
# since a disk file system can flush a rewritten file on every close.
scratch=$(mktemp -d -p /dev/shm pdbench-fuzz.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"

# A finding's report starts at one of these (sanitizer, libFuzzer, fuzz_support.h).
finding='ERROR: |fuzz property violated|deadly signal'
failed=()
printf '%-26s %10s %8s %16s %8s  %s\n' target executions exec/s corpus edges result
for target in "${targets[@]}"; do
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$run/crashes/$target-")
  [ -f "fuzz/$target.dict" ] && options+=(-dict="fuzz/$target.dict")
  log="$run/logs/$target.log"
  result=ok
  "build-fuzz/fuzz/$target" "${options[@]}" "$run/corpus/$target" >"$log" 2>&1 || result=FAILED
  # The last status line: "#N DONE cov: EDGES ft: F corp: UNITS/SIZE ...".
  status=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
  edges=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$status")
  corpus=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$status")
  executions=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
  per_second=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
  printf '%-26s %10s %8s %16s %8s  %s\n' "$target" "${executions:--}" "${per_second:--}" "${corpus:--}" \
    "${edges:--}" "$result"
  if [ "$result" != ok ]; then
    failed+=("$target")
    if grep -qE "$finding" "$log"; then
      awk -v re="$finding" '$0 ~ re { p = 1 } p && n++ < 60 { print substr($0, 1, 240) }' "$log" >&2
    else
      tail -n 40 "$log" >&2
    fi
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs in $run/crashes/, logs in $run/logs/" >&2
  exit 1
fi
