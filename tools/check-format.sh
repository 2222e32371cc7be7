#!/usr/bin/env bash
# Fails when a tracked C++/CUDA source differs from what clang-format (the root .clang-format) would
# write; .ci/run calls it before building. Takes about a second on two cores.
#
#   tools/check-format.sh          check every tracked .hpp/.cpp/.cu/.cuh/.h file
#   tools/check-format.sh --fix    rewrite them in place instead (clang-format -i)
#
# Environment: CLANG_FORMAT (default clang-format; CI installs Debian 12's clang-format 14, and
# another major version may format a few lines differently).
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null ||
  { echo "check-format: $clang_format not found (Debian: apt-get install clang-format)" >&2; exit 2; }

# Tracked files only, so build trees and scratch files are never read. Nothing here is generated
# or third-party today; list such paths in the exclusion below if that changes.
mapfile -d '' files < <(git ls-files -z -- '*.hpp' '*.cpp' '*.cu' '*.cuh' '*.h' ':!:third_party/**')
((${#files[@]})) || { echo "check-format: no source files found" >&2; exit 2; }

if [[ "${1:-}" == "--fix" ]]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 64 -P "$(nproc)" "$clang_format" -i
  exit 0
fi

# --dry-run --Werror prints each difference as file:line:col: error: and exits non-zero.
if ! printf '%s\0' "${files[@]}" | xargs -0 -n 64 -P "$(nproc)" "$clang_format" --dry-run --Werror; then
  echo "check-format: the files above are not formatted; run tools/check-format.sh --fix" \
    "(or clang-format -i <file>) and commit the result" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted ($("$clang_format" --version | sed 's/.*version //'))"
