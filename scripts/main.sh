#!/usr/bin/env bash
# The main job: build, then trace and run the bundled stories260K model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/bench/pdbench/pdbench explain -m models/stories260K.gguf -p "Once upon a time" -n 8
./build/bench/pdbench/pdbench generate -m models/stories260K.gguf -p "Once upon a time" -n 124 --temp 0
