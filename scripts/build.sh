#!/usr/bin/env bash
# Configures and builds pdbench (Release with debug info) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPDBENCH_WERROR=ON "$@" >/dev/null
cmake --build build -j "$(nproc)"
