#!/usr/bin/env bash
#   tests/setup/setup_names_cmake_dependencies.sh SOURCE_DIR
# Every dependency the CMake files look for is named in scripts/setup.sh
# beside the Debian package that provides it: "find_package(dnnl)",
# "pkg_check_modules(libpcre2-8)", "find_library(csv)", "find_program(node)".
# A call added without its package fails here; whether the package list is
# complete on a fresh machine is what scripts/check-fresh-root.sh proves.
set -euo pipefail
src="${1:?usage: $0 SOURCE_DIR}"
setup="$src/scripts/setup.sh"
mapfile -t cmake_files < <(find "$src" -name CMakeLists.txt -not -path '*/build*' -not -path '*/node_modules/*')

# "find_package(NAME ...)" -> find_package(NAME); pkg_check_modules names
# its pkg-config module after the keywords; find_library/find_program name
# the file after the variable.
calls=$(sed -nE \
  -e 's/^[[:space:]]*find_package\(([A-Za-z0-9_]+).*/find_package(\1)/p' \
  -e 's/^[[:space:]]*pkg_check_modules\([^)]* ([a-z0-9.+_-]+)\).*/pkg_check_modules(\1)/p' \
  -e 's/^[[:space:]]*find_(library|program)\([A-Za-z0-9_]+ ([A-Za-z0-9_.+-]+).*/find_\1(\2)/p' \
  "${cmake_files[@]}" | sort -u)
[ -n "$calls" ] || { echo "no find_package calls found under $src: the pattern is broken"; exit 1; }

passed=0 failed=0
while read -r call; do
  if grep -qF "$call" "$setup"; then
    passed=$((passed + 1))
  else
    echo "scripts/setup.sh names no package for $call"
    failed=$((failed + 1))
  fi
done <<<"$calls"
echo "setup.sh names $passed CMake dependencies; $failed missing"
[ "$failed" -eq 0 ]
