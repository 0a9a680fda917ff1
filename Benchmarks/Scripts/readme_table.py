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
    ("notify_chain_replace", "`b` replaced in an observed `\\.a.b.c`"),
    ("notify_computed", "change of a computed property's input"),
    ("observe_unobserve", "observe + unobserve (controller)"),
    ("observe_unobserve_token", "observe + invalidate (token)"),
    ("observe_unobserve_chain", "observe + unobserve `\\.a.b.c` (controller)"),
    ("stream_set_await", "set, then a value stream's `next()` (`Observations`; an AsyncStream fed by a sink)"),
    ("stream_wake_suspended", "set while a value stream's consumer waits in `next()`"),
    ("array_append_observed_1k", "append through `mutableArrayValue(for:)`, 1,000 elements, one observer"),
    ("observe_unobserve_initial", "observe + unobserve with `.initial` (a sink delivers the current value too)"),
    ("notify_chain5_replace_first", "first link replaced in an observed `\\.a.b.c.d.e`"),
    ("notify_declared", "change through a declared dependency (OpenCombine: `map`)"),
    ("memory_per_registration", "heap bytes per registration"),
]
THREADS = [
    ("two_threads", "two threads on two objects vs one thread"),
    ("two_threads_chain", "two threads on two chains `\\.a.b.c` vs one thread"),
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
    for name, label in THREADS:
        if name in metrics:
            rows.append(f"| {label} | {metrics[name]['ours']:.2f}× throughput | | |")
    rows += [
        "",
        "Observation's observe + unobserve is a one-shot `withObservationTracking` plus the set that fires it",
        "(its registrations have no public cancel). Instructions per operation: `Benchmarks/CALLGRIND.md`.",
    ]
    text = open(readme).read()
    start, end = text.index(START) + len(START), text.index(END)
    open(readme, "w").write(text[:start] + "\n" + "\n".join(rows) + "\n" + text[end:])


if __name__ == "__main__":
    main()
