#!/usr/bin/env bash
# Builds pdbench and runs the whole test suite with CTest, beside a
# throwaway PostgreSQL server for the results history's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
bash scripts/postgres-test-server.sh run ctest --test-dir build --output-on-failure -j "$(nproc)"
