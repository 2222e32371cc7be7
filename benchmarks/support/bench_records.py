"""What the CuPy and PyTorch baseline scripts share: the command line (--repeat, --json), one JSON
line per case on stdout, and with --json PATH the same cases in one JSON file, which
tools/plot_bandwidth.py reads. Builds on the standard library only."""
import argparse
import atexit
import json

_RECORDS = []


def start(doc, header, repeat=20):
    """Parses --repeat and --json, prints `header` (library version, device) as the first line and,
    with --json, writes {**header, "records": [...]} to that path when the script exits."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--json", metavar="PATH", help="also write every case to PATH as one JSON object")
    args = parser.parse_args()
    print(json.dumps(header), flush=True)
    if args.json:
        atexit.register(_write, args.json, header)
    return args


def emit(name, n, total_bytes, ms):
    """Prints one case as a JSON line (name, n, ms, items_per_second, bytes_per_second) and keeps it."""
    seconds = ms / 1e3
    record = {"name": name, "n": n, "ms": round(ms, 4), "items_per_second": n / seconds,
              "bytes_per_second": total_bytes / seconds}
    _RECORDS.append(record)
    print(json.dumps(record), flush=True)


def _write(path, header):
    with open(path, "w") as f:
        json.dump({**header, "records": _RECORDS}, f, indent=1)
        f.write("\n")
