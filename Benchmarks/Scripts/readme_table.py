#!/usr/bin/env python3
"""Writes the benchmark table of README.md from results.json (between the benchmark markers).

Usage: readme_table.py <results.json> <README.md>. Standard library only.
"""

import json
import sys

START = "<!-- benchmarks:start -->"
END = "<!-- benchmarks:end -->"
SHOWN = [
    ("set_unobserved", "set, nobody observing"),
    ("notify_1", "one change, one observer"),
    ("notify_chain", "change observed through `\\.a.b.c`"),
    ("notify_computed", "change of a computed property's input"),
    ("observe_unobserve", "observe + unobserve (controller)"),
    ("observe_unobserve_token", "observe + invalidate (token)"),
    ("memory_per_registration", "heap bytes per registration"),
]


def number(value, unit):
    text = f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
    return text + (" B" if unit == "bytes" else " ns")


def main():
    results, readme = sys.argv[1], sys.argv[2]
    metrics = {m["name"]: m for m in json.load(open(results))["metrics"]}
    rows = ["| operation | KVOMediator | Observation | OpenCombine |", "|---|---:|---:|---:|"]
    for name, label in SHOWN:
        metric = metrics.get(name)
        if not metric:
            continue
        peers = metric["peers"]
        cells = [number(metric["ours"], metric["unit"])]
        for peer in ("Observation", "OpenCombine"):
            cells.append(number(peers[peer], metric["unit"]) if peer in peers else "–")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    if "two_threads" in metrics:
        rows.append(f"| two threads on two objects vs one thread | {metrics['two_threads']['ours']:.2f}× throughput | | |")
    text = open(readme).read()
    start, end = text.index(START) + len(START), text.index(END)
    open(readme, "w").write(text[:start] + "\n" + "\n".join(rows) + "\n" + text[end:])


if __name__ == "__main__":
    main()
