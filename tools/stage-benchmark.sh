#!/usr/bin/env bash
# Copies the installed Google Benchmark (headers, library, CMake package) into a relocatable
# prefix, so it can travel to a GPU machine that lacks it:
#   tools/stage-benchmark.sh .device-carry/benchmark
#   NDCUDA_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.device-carry/benchmark tools/gpu-check.sh --bench
set -euo pipefail
dest=${1:-.device-carry/benchmark}
config=$(dirname "$(find /usr/lib /usr/local/lib -name benchmarkConfig.cmake -print -quit)")
libdir=$(dirname "$(dirname "$config")")            # .../lib/<triplet>
prefix=$(cd "$libdir/.." && pwd)
[[ -d "$prefix/include/benchmark" ]] || prefix=$(cd "$prefix/.." && pwd)
rel=${libdir#"$prefix"/}
mkdir -p "$dest/$rel/cmake" "$dest/include"
cp -a "$config" "$dest/$rel/cmake/"
cp -a "$libdir"/libbenchmark* "$dest/$rel/"
cp -a "$prefix/include/benchmark" "$dest/include/"
echo "staged Google Benchmark from $prefix into $dest"
