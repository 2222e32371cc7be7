#!/usr/bin/env bash
# Builds every libFuzzer target of tests/fuzz (each tests/fuzz/<name>_fuzz.cpp) with clang and runs
# each for its share of a time budget, starting from its checked-in seeds (tests/fuzz/corpus/<name>/).
# Fails on the first crash, leak, sanitizer report or timeout, and leaves the input that caused it
# in <build>/artifacts/. .ci/run calls it; docs/security.md says how to run it longer.
#
#   tools/run-fuzzers.sh [total seconds]     default 120, split evenly over the targets
#
# Environment: FUZZ_BUILD_DIR (default build/fuzz), CXX_FUZZ (default clang++), FUZZ_JOBS (build
# jobs, default 2). New inputs a run finds go to <build>/corpus/<name>/, not into the source tree;
# copy the ones worth keeping into tests/fuzz/corpus/<name>/ (small files only).
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-120}
build=${FUZZ_BUILD_DIR:-build/fuzz}
cxx=${CXX_FUZZ:-clang++}

if ! command -v "$cxx" >/dev/null; then
  echo "run-fuzzers: $cxx not found; install clang and libclang-rt-14-dev (Debian 12)" >&2
  exit 2
fi
mkdir -p "$build"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S tests/fuzz -B "$build" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; echo "run-fuzzers: configuring the fuzz targets failed" >&2; exit 2; }
cmake --build "$build" -j "${FUZZ_JOBS:-2}"

targets=()
for source in tests/fuzz/*_fuzz.cpp; do
  targets+=("$(basename "$source" .cpp)")
done
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "run-fuzzers: no tests/fuzz/*_fuzz.cpp" >&2
  exit 2
fi
share=$((total / ${#targets[@]}))
((share >= 1)) || share=1
mkdir -p "$build/artifacts"
# Leak checking needs ptrace-free LSan, which some containers lack: keep it, but say why it fails.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for target in "${targets[@]}"; do
  name=${target%_fuzz}
  seeds=tests/fuzz/corpus/$name
  corpus=$build/corpus/$name
  mkdir -p "$corpus"
  [[ -d $seeds ]] || seeds=
  echo "run-fuzzers: $target for ${share}s (seeds: $seeds)"
  # -timeout: an input that runs 10 s counts as a hang; -rss_limit_mb: so does one that takes 2 GiB.
  if ! "$build/$target" -max_total_time="$share" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" "$corpus" ${seeds:+"$seeds"} \
      >"$build/$name.log" 2>&1; then
    tail -n 60 "$build/$name.log" >&2
    echo "run-fuzzers: $target FAILED; the input is in $build/artifacts/ (rerun: $build/$target <file>)" >&2
    failed+=("$target")
  else
    grep -E "^stat::number_of_executed_units|^Done" "$build/$name.log" | tr '\n' ' '
    echo
  fi
done
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "run-fuzzers: crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "run-fuzzers: ${#targets[@]} targets, no crash"
