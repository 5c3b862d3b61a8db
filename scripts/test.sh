#!/usr/bin/env bash
# The whole test suite. Every test runs under AddressSanitizer (with leak
# checks) and UndefinedBehaviorSanitizer in build-asan/, with the smoke
# scenario (scripts/test-sanitizers.sh); then the tests labelled timing,
# whose verdicts instrumented code would make meaningless, run in the
# Release build (build/: only their binaries are built). Both beside a
# throwaway PostgreSQL server for the results history's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-sanitizers.sh
bash scripts/build.sh timing_tests
bash scripts/postgres-test-server.sh run ctest --test-dir build --output-on-failure -L timing
