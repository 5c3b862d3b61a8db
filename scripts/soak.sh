#!/usr/bin/env bash
# The soak tests: 2,000 mixed requests through continuous batching on
# stories260K, in process (tests/model/soak_test.cpp) and over HTTP to
# pdbench serve on loopback with 8 clients, one request in ten hanging up
# mid-stream (tests/server/http_soak_test.cpp). After every wave of 100, the
# KV blocks and the heap's live bytes (glibc's, or ASan's), and every
# request's tokens (text, over HTTP) against it alone.
# Kept out of ctest (DISABLED_) for their length.
#   scripts/soak.sh [BUILD_DIR]   # default build/ (scripts/build.sh makes it)
# .ci/run runs it in build-asan/, under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
"$build/tests/model/model_test" --gtest_also_run_disabled_tests --gtest_filter='Soak.*'
"$build/tests/server/server_test" --gtest_also_run_disabled_tests --gtest_filter='HttpSoak.*'
