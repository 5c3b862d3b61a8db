#!/usr/bin/env bash
# The soak test (tests/model/soak_test.cpp): 2,000 mixed requests through
# continuous batching on stories260K; after every wave of 100, the KV blocks
# and the memory in use (resident set; live heap bytes under ASan), and every
# request's tokens against it alone. Kept out of ctest (DISABLED_) for its
# length (3 s on 2 cores in build/, 7 s in build-asan/).
#   scripts/soak.sh [BUILD_DIR]   # default build/ (scripts/build.sh makes it)
# .ci/run runs it in build-asan/, under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${1:-build}/tests/model/model_test" --gtest_also_run_disabled_tests --gtest_filter='Soak.*'
