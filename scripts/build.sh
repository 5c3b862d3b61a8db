#!/usr/bin/env bash
#   scripts/build.sh [TARGET...]
# Configures and builds pdbench (Release with debug info, warnings as errors:
# the "default" preset in CMakePresets.json) into build/: every target, or
# only the TARGETs named (scripts/main.sh needs pdbench alone).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
if [ $# -gt 0 ]; then
  cmake --build --preset default -j "$(nproc)" --target "$@"
else
  cmake --build --preset default -j "$(nproc)"
fi
