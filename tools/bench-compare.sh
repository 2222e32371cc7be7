#!/usr/bin/env bash
# Before/after benchmarks in one run on a GPU machine: builds the benchmark targets of two trees
# (Release, side by side) and runs them alternately, base then new, for several rounds, then
# prints one line per benchmark row with each tree's median time and the change. What an issue
# that must not slow anything down reports (docs/performance.md).
#
#   tools/bench-compare.sh <base-tree> [out-dir]
#
# <base-tree> is a source tree of the "before" commit (e.g. made with
#   git archive --prefix=base/ -o base.tar <commit>; tar xf base.tar -C /tmp
# here, or on the GPU machine from a tarball carried with the working tree); the "after" tree is
# this checkout. Environment: BENCHES (default: elementwise_bench reduction_bench random_bench
# jit_compile_bench), ROUNDS (default 3), JOBS (default nproc), BENCH_FILTER (a
# --benchmark_filter regex), BENCH_ARGS (more benchmark flags, e.g. --benchmark_min_time=0.2 for
# shorter rounds, so that more of them fit), NEW_BUILD (a Release build dir of this checkout to reuse, e.g. the one
# tools/gpu-check.sh made: only the benchmark targets are built there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=$(cd "${1:?usage: tools/bench-compare.sh <base-tree> [out-dir]}" && pwd)
out=${2:-$root/build/bench-compare}
benches=${BENCHES:-elementwise_bench reduction_bench random_bench jit_compile_bench}
rounds=${ROUNDS:-3}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"

build() {  # <source> <build dir>
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release >"$2.configure.log" 2>&1 ||
    { tail -20 "$2.configure.log"; return 1; }
  local targets=()
  for b in $benches; do targets+=(--target "$b"); done
  cmake --build "$2" -j "$((jobs / 2 > 0 ? jobs / 2 : 1))" "${targets[@]}" >"$2.build.log" 2>&1 ||
    { grep -E "error" -A3 "$2.build.log" | head -40; return 1; }
}
new_build=${NEW_BUILD:-$out/build-new}
mkdir -p "$out/build-base" "$new_build"
build "$base" "$out/build-base" &
base_pid=$!
build "$root" "$new_build" &
new_pid=$!
wait $base_pid || { echo "bench-compare: the base tree did not build"; exit 1; }
wait $new_pid || { echo "bench-compare: the new tree did not build"; exit 1; }

filter=()
[[ -n "${BENCH_FILTER:-}" ]] && filter=(--benchmark_filter="$BENCH_FILTER")
read -r -a extra <<<"${BENCH_ARGS:-}"
filter+=("${extra[@]}")
for ((r = 1; r <= rounds; r++)); do
  for b in $benches; do
    for tree in base new; do
      dir=$out/build-base
      [[ $tree == new ]] && dir=$new_build
      exe=$(find "$dir" -name "$b" -type f -perm -u+x | head -1)
      [[ -z $exe ]] && { echo "bench-compare: $b not built in $tree"; exit 1; }
      "$exe" "${filter[@]}" --benchmark_format=json --benchmark_out="$out/$tree-$b-$r.json" \
        --benchmark_out_format=json >/dev/null 2>"$out/$tree-$b-$r.err" ||
        { echo "bench-compare: $b ($tree, round $r) failed:"; tail -5 "$out/$tree-$b-$r.err"; exit 1; }
    done
  done
done

python3 - "$out" "$rounds" $benches <<'EOF'
import json, statistics, sys
out, rounds, benches = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def times(tree, bench):
    rows = {}
    for r in range(1, rounds + 1):
        with open(f"{out}/{tree}-{bench}-{r}.json") as f:
            for run in json.load(f)["benchmarks"]:
                if run.get("run_type") == "aggregate" or "error_message" in run:
                    continue
                scale = {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[run["time_unit"]]
                rows.setdefault(run["name"], []).append(run["real_time"] * scale)
    return rows
worst = 0.0
print(f"{'benchmark':70} {'base us':>12} {'new us':>12} {'change':>8}")
for bench in benches:
    before, after = times("base", bench), times("new", bench)
    for name in before:
        if name not in after:
            print(f"{name:70} {'':>12} {'':>12}  missing in new")
            continue
        b, a = statistics.median(before[name]), statistics.median(after[name])
        change = (a - b) / b * 100 if b else 0.0
        worst = max(worst, change)
        print(f"{name:70} {b:12.2f} {a:12.2f} {change:+7.1f}%")
print(f"bench-compare: largest slowdown {worst:+.1f}% (median of {rounds} alternating rounds per tree)")
EOF
