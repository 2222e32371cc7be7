#!/usr/bin/env python3
"""Prints Google Benchmark JSON files as one compact line per benchmark: the name, the time per
iteration in a readable unit, and the counters (bytes/s in GB/s). Used to read a GPU run's
results quickly: tools/bench-summary.py out/*.json"""
import json
import sys


def readable_time(value, unit):
    ns = value * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]
    for factor, name in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if ns >= factor:
            return f"{ns / factor:.3g} {name}"
    return f"{ns:.3g} ns"


def counters(run):
    parts = []
    for key, value in run.items():
        if key == "bytes_per_second":
            parts.append(f"{value / 1e9:.1f} GB/s")
        elif key == "items_per_second":
            parts.append(f"{value:.4g} items/s")
        elif isinstance(value, (int, float)) and key not in {
            "family_index", "per_family_instance_index", "repetitions", "repetition_index",
            "threads", "iterations", "real_time", "cpu_time"}:
            parts.append(f"{key}={value:.4g}")
    return "  ".join(parts)


def main(paths):
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        print(f"== {path}")
        for run in data.get("benchmarks", []):
            if run.get("run_type") == "aggregate" and run.get("aggregate_name") != "median":
                continue
            if "error_message" in run:
                print(f"{run['name']}: ERROR {run['error_message']}")
                continue
            time = readable_time(run["real_time"], run.get("time_unit", "ns"))
            print(f"{run['name']}: {time}  {counters(run)}")


if __name__ == "__main__":
    main(sys.argv[1:])
