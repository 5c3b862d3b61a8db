#!/usr/bin/env bash
# Configures and builds pdbench (Release with debug info, warnings as errors:
# the "default" preset in CMakePresets.json) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default "$@" >/dev/null
cmake --build --preset default -j "$(nproc)"
