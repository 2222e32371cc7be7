#!/usr/bin/env python3
"""Draws bandwidth (GB/s) against size for add, sum and copy in float32: ndcuda, CuPy and PyTorch,
with cudaMemcpy D2D as the ceiling, from the JSON files of a `tools/gpu-check.sh --bench` run.

Reads Google Benchmark JSON (benchmarks/*_bench --benchmark_out: BM_add, BM_sum_sweep,
BM_copy_assign, BM_memcpy_d2d) and the --json files of benchmarks/cupy/bandwidth_cupy.py and
benchmarks/torch/bandwidth_torch.py (benchmarks/support/bench_records.py: add_float32, sum_float32,
copy_float32). Needs matplotlib (a GPU-machine/doc tool: CI never runs it). tests/data/bandwidth_fixture/
holds made-up inputs of both kinds, to try the script without a GPU.

    python3 tools/plot_bandwidth.py build/gpu-check/bench            # writes docs/bandwidth.svg
    python3 tools/plot_bandwidth.py a.json b.json --out /tmp/bw.svg
"""
import argparse
import json
import pathlib
import sys

OPS = ("add", "sum", "copy")
TITLES = {"add": "c[...] = a + b (3 arrays of traffic)", "sum": "sum(a), full (bytes read)",
          "copy": "c[...] = a (read + write)"}
LIBRARIES = ("ndcuda", "CuPy", "PyTorch")
CEILING = "cudaMemcpy D2D"
# Google Benchmark names (the part before the first '/') -> op; BM_memcpy_d2d is the ceiling.
BENCH_OPS = {"BM_add": "add", "BM_sum_sweep": "sum", "BM_copy_assign": "copy", "BM_memcpy_d2d": CEILING}
RECORD_OPS = {"add_float32": "add", "sum_float32": "sum", "copy_float32": "copy"}
# The sweep: 2^20 .. 2^28 elements (nd::bench::bandwidth_sweep); other sizes are left out.
SIZES = range(20, 29)


def json_files(paths):
    for path in map(pathlib.Path, paths):
        yield from sorted(path.glob("*.json")) if path.is_dir() else [path]


def collect(paths):
    """{series: {n: bytes per second}} with series (library, op) or (CEILING, None), and the device
    names found. Where a size appears twice (the ceiling in several benchmark files), the best
    figure counts."""
    series = {}
    devices = set()

    def add(key, n, rate):
        if n >= 1 << SIZES.start and n < 1 << SIZES.stop and rate > 0:
            points = series.setdefault(key, {})
            points[n] = max(points.get(n, 0.0), rate)

    for path in json_files(paths):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            print(f"plot_bandwidth: skipping {path}: {e}", file=sys.stderr)
            continue
        if not isinstance(data, dict):
            continue
        for run in data.get("benchmarks", []):  # Google Benchmark
            parts = run.get("name", "").split("/")
            op = BENCH_OPS.get(parts[0])
            if op is None or len(parts) < 2 or not parts[1].isdigit() or "error_message" in run:
                continue
            if run.get("run_type") == "aggregate" and run.get("aggregate_name") != "median":
                continue
            key = (CEILING, None) if op == CEILING else ("ndcuda", op)
            add(key, int(parts[1]), float(run.get("bytes_per_second", 0.0)))
        library = "CuPy" if "cupy" in data else "PyTorch" if "torch" in data else None
        if library and "records" in data:  # benchmarks/support/bench_records.py
            if data.get("device"):
                devices.add(data["device"])
            for record in data["records"]:
                op = RECORD_OPS.get(record.get("name"))
                if op:
                    add((library, op), int(record["n"]), float(record["bytes_per_second"]))
    return series, devices


def plot(series, devices, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "ndcuda-bandwidth"  # stable ids: the SVG diffs only when figures change
    fig, axes = plt.subplots(1, len(OPS), figsize=(15, 4.6), sharey=True)
    styles = {"ndcuda": ("C0", "o"), "CuPy": ("C1", "s"), "PyTorch": ("C2", "^")}
    ceiling = series.get((CEILING, None), {})
    for ax, op in zip(axes, OPS):
        if ceiling:
            sizes = sorted(ceiling)
            ax.plot(sizes, [ceiling[n] / 1e9 for n in sizes], color="0.5", linestyle="--", label=CEILING)
        for library in LIBRARIES:
            points = series.get((library, op))
            if points:
                sizes = sorted(points)
                color, marker = styles[library]
                ax.plot(sizes, [points[n] / 1e9 for n in sizes], color=color, marker=marker, label=library)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("float32 elements")
        ax.set_title(TITLES[op], fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("GB/s")
    axes[0].legend(loc="lower right")
    device = ", ".join(sorted(devices))
    fig.suptitle("Bandwidth against size" + (f" on {device}" if device else ""))
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)


def main():
    root = pathlib.Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", help="JSON files, or folders of them")
    parser.add_argument("--out", type=pathlib.Path, default=root / "docs" / "bandwidth.svg")
    args = parser.parse_args()
    series, devices = collect(args.inputs)
    missing = [f"{lib} {op}" for lib in LIBRARIES for op in OPS if (lib, op) not in series]
    if (CEILING, None) not in series:
        missing.append(CEILING)
    if not any(key[0] == "ndcuda" for key in series):
        sys.exit("plot_bandwidth: no ndcuda sweep (BM_add, BM_sum_sweep, BM_copy_assign at 2^20 .. 2^28) in "
                 + " ".join(args.inputs) + ": run tools/gpu-check.sh --bench on a GPU machine first")
    if missing:
        print("plot_bandwidth: not in the inputs, left out of the plot: " + ", ".join(missing), file=sys.stderr)
    plot(series, devices, args.out)
    print(f"plot_bandwidth: wrote {args.out}")


if __name__ == "__main__":
    main()
