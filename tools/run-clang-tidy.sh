#!/usr/bin/env bash
# Runs clang-tidy (checks from the root .clang-tidy) on the C++ files changed against a base ref, or
# on every file, using the compile commands of a configured build. CI runs it with --library and
# without performance-unnecessary-value-param (.ci/run says why); run it on what you change before
# sending it (docs/contributing.md), which covers that check and the tests too.
#
#   tools/run-clang-tidy.sh                 files changed against origin/main (or main)
#   tools/run-clang-tidy.sh --base <ref>    files changed against <ref>
#   tools/run-clang-tidy.sh --library       every .cpp under src/ (the libraries; what CI checks)
#   tools/run-clang-tidy.sh --all           every .cpp under src/, tests/, examples/, benchmarks/
#   tools/run-clang-tidy.sh <file>...       just these files
#
# .cu files are skipped (clang-tidy cannot read nvcc's flags). A changed header is checked through
# the .cpp files that include it directly, since headers have no compile command of their own;
# .clang-tidy's HeaderFilterRegex reports findings in ndcuda's headers. Exits 1 when a check fires
# or clang-tidy fails on a file.
#
# Environment: BUILD_DIR (default build; configured with CMAKE_EXPORT_COMPILE_COMMANDS=ON, which
# the top-level CMakeLists.txt turns on), CLANG_TIDY (default clang-tidy), JOBS (default nproc),
# CHECKS (globs appended to .clang-tidy's Checks, e.g. -performance-unnecessary-value-param).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
tidy=${CLANG_TIDY:-clang-tidy}
jobs=${JOBS:-$(nproc)}
tidy_args=(-p "$build" --quiet)
[[ -n ${CHECKS:-} ]] && tidy_args+=("--checks=$CHECKS")

command -v "$tidy" >/dev/null || { echo "run-clang-tidy: $tidy not found (Debian: apt-get install clang-tidy)" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] || {
  echo "run-clang-tidy: no $build/compile_commands.json; configure first:" >&2
  echo "  cmake -S . -B $build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON" >&2
  exit 2
}

base=""
files=()
case "${1:-}" in
  --library) mapfile -t files < <(git ls-files -- 'src/*.cpp') ;;
  --all) mapfile -t files < <(git ls-files -- 'src/*.cpp' 'tests/*.cpp' 'examples/*.cpp' 'benchmarks/*.cpp') ;;
  --base) base=${2:?--base needs a ref} ;;
  "") ;;
  *) files=("$@") ;;
esac

if [[ ${#files[@]} -eq 0 && "${1:-}" != "--all" && "${1:-}" != "--library" ]]; then
  if [[ -z $base ]]; then
    if git rev-parse -q --verify origin/main >/dev/null; then base=origin/main; else base=main; fi
  fi
  # Committed, staged and unstaged changes since the merge base, plus untracked sources.
  mapfile -t changed < <({ git diff --name-only --diff-filter=d "$(git merge-base "$base" HEAD)" -- '*.cpp' '*.hpp' '*.h'
    git ls-files --others --exclude-standard -- '*.cpp' '*.hpp' '*.h'; } | sort -u)
  for f in "${changed[@]}"; do
    case "$f" in
      *.cpp) files+=("$f") ;;
      *)
        # A header: the .cpp files that include it by its public or src-relative name.
        name=${f#include/}
        name=${name#src/}
        mapfile -t users < <(git grep -l -F -e "<$name>" -e "\"$name\"" -e "\"$(basename "$f")\"" -- '*.cpp' || true)
        files+=("${users[@]}")
        ;;
    esac
  done
fi

# Only files the build compiles (a compile command exists), never .cu, each once.
mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -v '\.cu$' | sort -u |
  while read -r f; do [[ -n $f ]] && grep -q "\"file\": \"$(pwd)/$f\"" "$build/compile_commands.json" && echo "$f"; done || true)
if [[ ${#files[@]} -eq 0 ]]; then
  echo "run-clang-tidy: no compiled C++ file to check${base:+ (changes against $base)}"
  exit 0
fi
echo "run-clang-tidy: ${#files[@]} file(s) with $("$tidy" --version | grep -o 'version [0-9.]*'), $jobs at a time${CHECKS:+, checks $CHECKS}"

# clang-tidy prints findings as file:line:col: warning: ... [check] (error: under .clang-tidy's
# WarningsAsErrors); one process per file.
log=$(mktemp)
errors=$(mktemp)
trap 'rm -f "$log" "$errors"' EXIT
status=0
printf '%s\0' "${files[@]}" | xargs -0 -n 1 -P "$jobs" "$tidy" "${tidy_args[@]}" 2>"$errors" >"$log" || status=$?
# The same header finding reached through several .cpp files is shown once.
findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" | sort -u || true)
if [[ -n $findings ]]; then
  echo "$findings"
  echo "run-clang-tidy: $(wc -l <<<"$findings") finding(s); fix them, or justify a NOLINT(check) on the line" >&2
  exit 1
fi
if [[ $status -ne 0 ]]; then
  # No finding, yet a clang-tidy failed (a crash, a bad option): its messages, less the counts.
  grep -v -E 'warnings? (generated|treated as errors)' "$errors" >&2 || true
  echo "run-clang-tidy: clang-tidy failed (xargs status $status) without a finding; see above" >&2
  exit 1
fi
echo "run-clang-tidy: no findings"
