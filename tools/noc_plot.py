#!/usr/bin/python3
"""Plot a `tessera noc --sweep` latency-throughput curve.

Usage: noc_plot.py CURVE.csv OUT.png [--title TEXT] [more CURVE.csv ...]

Each CSV has the columns tessera noc writes: offered, injected, accepted,
avg_latency, p99_latency, avg_hops, saturated. The plot shows average packet
latency (log scale) against offered load (flits/node/cycle); saturated
points are hollow, and points without a latency (measured packets left
undelivered) are left out.
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_curve(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "avg_latency" not in rows[0]:
        sys.exit(f"noc_plot.py: {path}: not a tessera noc sweep CSV")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--title", default="")
    parser.add_argument("more", nargs="*", help="further CSV files drawn on the same axes")
    args = parser.parse_args()
    fig, ax = plt.subplots(figsize=(6, 4))
    for path in [args.csv] + args.more:
        # A saturated point whose measured packets did not all arrive has no
        # latency (an empty field): it is left out rather than drawn biased.
        rows = [r for r in read_curve(path) if r["avg_latency"] != ""]
        x = [float(r["offered"]) for r in rows]
        y = [float(r["avg_latency"]) for r in rows]
        sat = [r["saturated"] == "1" for r in rows]
        line, = ax.plot(x, y, "-", label=path.rsplit("/", 1)[-1])
        ax.plot([a for a, s in zip(x, sat) if not s], [b for b, s in zip(y, sat) if not s], "o", color=line.get_color())
        ax.plot([a for a, s in zip(x, sat) if s], [b for b, s in zip(y, sat) if s], "o", mfc="none",
                color=line.get_color())
    ax.set_xlabel("offered load (flits/node/cycle)")
    ax.set_ylabel("average packet latency (cycles)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    if args.title:
        ax.set_title(args.title)
    if args.more:
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
