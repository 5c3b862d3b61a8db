#!/usr/bin/env bash
# Builds the asan-ubsan preset (CMakePresets.json) into build-asan/, then runs
# the whole test suite and the smoke scenario under AddressSanitizer (with
# LeakSanitizer) and UndefinedBehaviorSanitizer. Any finding fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset asan-ubsan >/dev/null
cmake --build --preset asan-ubsan -j "$(nproc)"

# The first finding ends the process with a stack trace and a non-zero exit
# (UBSan too: the preset compiles with -fno-sanitize-recover=all).
# Suppressions cover third-party code only; the file says why for each.
supp="$PWD/scripts/sanitizers"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_stacktrace=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp"

# The preset leaves out the tests labelled "timing" (compare's A/A and
# slowed-build checks): instrumented code runs several times slower, and
# unevenly across operations, so a timing verdict under it means nothing;
# they run in the normal suite (scripts/test.sh).
bash scripts/postgres-test-server.sh run ctest --preset asan-ubsan -j "$(nproc)"

# The smoke scenario and its report, as scripts/main.sh runs them.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
pdbench=./build-asan/bench/pdbench/pdbench
"$pdbench" run scenarios/smoke.toml -o "$out/smoke" >/dev/null
"$pdbench" report "$out/smoke" -o "$out/smoke/report.html" --md "$out/smoke/report.md" >/dev/null
echo "sanitizers: test suite and smoke scenario passed with no findings"
