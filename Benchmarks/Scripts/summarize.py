#!/usr/bin/env python3
"""Turns the benchmark tool's JMH export into RESULTS.md and results.json.

Usage: summarize.py <Current_run.jmh.json> <RESULTS.md> <results.json>

Each benchmark is named "<metric> <implementation> x<operations per iteration>" (the JMH export
replaces spaces with underscores). Every figure is a median over the benchmark's iterations,
divided by the operations per iteration. Standard library only.
"""

import json
import platform
import subprocess
import sys
from datetime import datetime, timezone

PREFIX = "package.benchmark.KVOBenchmarks."
WALL_CLOCK = "Time (wall clock)"  # JMH export: microseconds per iteration
MALLOCS = "Malloc (total)"  # count per iteration
NET_BYTES = "Malloc / free Δ (bytes)"  # memoryLeakedBytes: requested bytes minus freed bytes

# metric -> (unit, peers in report order, what one operation is)
METRICS = {
    "set_unobserved": ("ns", ["Observation", "OpenCombine", "plainStored"], "one set, nobody observing"),
    "notify_1": ("ns", ["OpenCombine", "Observation", "didSetClosure"], "one change, one observer"),
    "notify_fanout_10": ("ns", [], "one callback (per observer per change), 10 observers"),
    "notify_fanout_100": ("ns", [], "one callback (per observer per change), 100 observers"),
    "notify_fanout_1000": ("ns", [], "one callback (per observer per change), 1,000 observers"),
    "notify_chain": ("ns", ["Observation", "OpenCombine"], "one change of c observed as \\.a.b.c"),
    "notify_computed": ("ns", ["Observation", "OpenCombine"], "one change of a dependency of a computed property"),
    "observe_unobserve": ("ns", ["Observation", "OpenCombine"], "one registration made and removed"),
    "observe_unobserve_token": ("ns", ["Observation", "OpenCombine"], "the same through a token"),
    "teardown_1e3": ("ns", [], "one observation removed by releasing a controller of 1e3"),
    "teardown_1e4": ("ns", [], "one observation removed by releasing a controller of 1e4"),
    "teardown_1e5": ("ns", [], "one observation removed by releasing a controller of 1e5"),
    "notify_1_crowded": ("ns", [], "notify_1 with 1e5 unrelated registrations alive"),
    "memory_per_registration": ("bytes", ["Observation", "OpenCombine"], "net requested heap bytes per live registration (1e5 alive)"),
    "two_threads": ("ratio", [], "throughput of 2 threads / 1 thread, same total sets (ideal 2.0)"),
}


def load(path):
    """{(metric, implementation): {"operations": n, "samples": k, "ns": x, "mallocs": y, "bytes": z}}"""
    with open(path) as file:
        elements = json.load(file)
    runs = {}
    for element in elements:
        key = element["benchmark"]
        if key.startswith(PREFIX):
            key = key[len(PREFIX):]
        metric, implementation, operations = key.rsplit("_", 2)
        operations = int(operations.lstrip("x"))
        if implementation == "oursToken":
            metric, implementation = metric + "_token", "ours"
        secondary = element["secondaryMetrics"]

        def median(name):
            return secondary[name]["scorePercentiles"]["50.0"] if name in secondary else None

        wall = median(WALL_CLOCK)
        mallocs = median(MALLOCS)
        net = median(NET_BYTES) if metric.startswith("memory") else None
        runs[(metric, implementation)] = {
            "operations": operations,
            "samples": element["measurementIterations"],
            "ns": wall * 1000.0 / operations if wall is not None else None,
            "mallocs": mallocs / operations if mallocs is not None else None,
            "bytes": net / operations if net is not None else None,
        }
    return runs


def value(runs, metric, implementation):
    run = runs.get((metric, implementation))
    if run is None:
        return None
    return run["bytes"] if metric.startswith("memory") else run["ns"]


def build_metrics(runs):
    """The entries of results.json, in METRICS order, for the metrics that ran."""
    entries = []
    for metric, (unit, peers, _) in METRICS.items():
        if metric == "two_threads":
            serial, parallel = value(runs, metric, "serial"), value(runs, metric, "parallel")
            if serial is not None and parallel is not None:
                entries.append({"name": metric, "unit": unit, "ours": round(serial / parallel, 3), "peers": {}})
            continue
        ours = value(runs, metric, "ours")
        if ours is None:
            continue
        # The token variant is compared with the same peer runs as the controller variant.
        found = {peer: value(runs, peer_metric(metric), peer) for peer in peers}
        entries.append({
            "name": metric,
            "unit": unit,
            "ours": rounded(ours),
            "peers": {peer: rounded(v) for peer, v in found.items() if v is not None},
        })
    return entries


def peer_metric(metric):
    return metric.removesuffix("_token")


def rounded(x):
    return round(x, 3) if x < 10 else round(x, 1)


def goals(entries):
    """(goal text, measured text, holds) for each goal whose metrics ran."""
    by_name = {entry["name"]: entry for entry in entries}

    def ours(name):
        return by_name[name]["ours"] if name in by_name else None

    def peer(name, who):
        return by_name.get(name, {}).get("peers", {}).get(who)

    rows = []

    def ratio_goal(text, numerator, denominator, limit):
        if numerator is None or denominator is None or denominator == 0:
            rows.append((text, "not measured", None))
            return
        ratio = numerator / denominator
        rows.append((text, f"{ratio:.3f} ({fmt(numerator)} / {fmt(denominator)})", ratio <= limit))

    ratio_goal("set_unobserved ≤ 0.1 × Observation's", ours("set_unobserved"), peer("set_unobserved", "Observation"), 0.1)
    ratio_goal("notify_1 ≤ 0.2 × OpenCombine's", ours("notify_1"), peer("notify_1", "OpenCombine"), 0.2)
    ratio_goal("notify_1 ≤ 0.05 × Observation's", ours("notify_1"), peer("notify_1", "Observation"), 0.05)
    ratio_goal("notify_1 ≤ 25 × the didSet closure", ours("notify_1"), peer("notify_1", "didSetClosure"), 25)
    ratio_goal(
        "notify_fanout_1000 per observer ≤ 1.5 × notify_fanout_10's",
        ours("notify_fanout_1000"), ours("notify_fanout_10"), 1.5,
    )
    ratio_goal(
        "observe_unobserve ≤ 0.5 × Observation's one-shot cycle",
        ours("observe_unobserve"), peer("observe_unobserve", "Observation"), 0.5,
    )
    if "observe_unobserve_token" in by_name:
        ratio_goal(
            "observe_unobserve (token) ≤ 0.5 × Observation's one-shot cycle",
            ours("observe_unobserve_token"), peer("observe_unobserve_token", "Observation"), 0.5,
        )
    ratio_goal("teardown_1e5 per observation ≤ 1.5 × teardown_1e3's", ours("teardown_1e5"), ours("teardown_1e3"), 1.5)
    ratio_goal("notify_1_crowded ≤ 1.2 × notify_1", ours("notify_1_crowded"), ours("notify_1"), 1.2)
    memory = ours("memory_per_registration")
    rows.append((
        "memory_per_registration ≤ 200 bytes",
        f"{fmt(memory)} bytes" if memory is not None else "not measured",
        memory <= 200 if memory is not None else None,
    ))
    threads = ours("two_threads")
    rows.append((
        "two_threads ≥ 1.7",
        f"{threads:.3f}" if threads is not None else "not measured",
        threads >= 1.7 if threads is not None else None,
    ))
    return rows


def fmt(x):
    if x is None:
        return "–"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def machine():
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        swift = "swift: unknown"
    cpus = "?"
    try:
        with open("/proc/cpuinfo") as file:
            models = [line.split(":", 1)[1].strip() for line in file if line.startswith("model name")]
        cpus = f"{len(models)} × {models[0]}" if models else cpus
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {cpus}; {swift}"


def markdown(runs, entries):
    lines = [
        "# KVOMediator benchmarks",
        "",
        f"Generated by `Benchmarks/run.sh` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC — {machine()}.",
        "All figures are medians of one run; every implementation of a metric ran in the same run.",
        "",
        "## Goals",
        "",
        "| goal | measured | holds |",
        "| --- | --- | --- |",
    ]
    for text, measured, holds in goals(entries):
        mark = "—" if holds is None else ("✅ yes" if holds else "❌ no")
        lines.append(f"| {text} | {measured} | {mark} |")

    lines += [
        "",
        "## Results",
        "",
        "Time is nanoseconds per operation; mallocs per operation; `ours ÷` is ours divided by that row",
        "(below 1 means ours is cheaper).",
        "",
        "| metric | one operation | implementation | median | mallocs / op | ours ÷ | samples |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for entry in entries:
        metric, unit = entry["name"], entry["unit"]
        what = METRICS[metric][2]
        if metric == "two_threads":
            for implementation in ("serial", "parallel"):
                run = runs[(metric, implementation)]
                lines.append(
                    f"| {metric} | {what} | {implementation} ({run['operations']:,} sets) "
                    f"| {fmt(run['ns'] * run['operations'] / 1e6)} ms | {fmt(run['mallocs'])} | | {run['samples']} |"
                )
            lines.append(f"| {metric} | | **ratio** | **{entry['ours']:.3f}** | | | |")
            continue
        suffix = " bytes" if unit == "bytes" else " ns"
        implementations = [("ours", entry["ours"])] + list(entry["peers"].items())
        for implementation, figure in implementations:
            run = runs[(metric if implementation == "ours" else peer_metric(metric), implementation)]
            ratio = "" if implementation == "ours" else f"{entry['ours'] / figure:.3f}" if figure else "∞"
            name = f"**{implementation}**" if implementation == "ours" else implementation
            lines.append(
                f"| {metric} | {what} | {name} | {fmt(figure)}{suffix} | {fmt(run['mallocs'])} | {ratio} | {run['samples']} |"
            )

    lines += [
        "",
        "## Method",
        "",
        "- Suite: `Benchmarks/Benchmarks/KVOBenchmarks/` with ordo-one/benchmark 1.38.1 (malloc interposer on),",
        "  exported with `--format jmh` and read by `Scripts/summarize.py`. Each benchmark name ends in",
        "  `x<N>`: the operations one iteration makes; medians are divided by N.",
        "- ours: `KVOController.observe(_:keyPath:options: [.new, .old])` with a block that hands",
        "  `change.newValue` to `blackHole`; every peer's callback does the same with its value.",
        "- set_unobserved: each set goes through one non-inlined function per implementation (the same",
        "  call overhead for all), so that a loop of plain stores cannot be folded into one.",
        "- Observation peers: `withObservationTracking` whose onChange registers again, the documented",
        "  way to keep observing (onChange fires once, on willSet, with no value).",
        "- observe_unobserve: Observation has no cancel, so its cycle is `withObservationTracking` plus",
        "  one set that fires the onChange and so removes the registration; OpenCombine's is",
        "  `$x.sink` + `cancel()` (the sink also receives the current value on subscription).",
        "- OpenCombine peers: `@Published` + `sink`; the chain uses `map` + `switchToLatest` per step;",
        "  the computed property uses one sink per dependency (OpenCombine 0.14 has no `combineLatest`).",
        "- teardown_N: one controller observes N objects (one observation each); only the controller's",
        "  release is measured.",
        "- notify_1_crowded: notify_1 while another controller holds 1e5 registrations on 1e5 other objects.",
        "- memory_per_registration: the benchmark's `memoryLeakedBytes` metric (malloc interposer:",
        "  requested bytes minus freed bytes in the measured region) while 1e5 registrations are made and",
        "  kept alive, divided by 1e5. Objects, observer and controller exist before the region. Requested",
        "  bytes exclude malloc's per-chunk overhead (about 8–16 bytes per malloc; see mallocs / op).",
        "- two_threads: two fresh threads each make 1e5 sets on their own observed object, against one",
        "  fresh thread making all 2e5 sets on the same two objects; ratio = serial time / parallel time.",
        "",
    ]
    return "\n".join(lines)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, markdown_path, json_path = sys.argv[1:]
    runs = load(source)
    entries = build_metrics(runs)
    with open(json_path, "w") as file:
        json.dump({"metrics": entries}, file, indent=2, ensure_ascii=False)
        file.write("\n")
    with open(markdown_path, "w") as file:
        file.write(markdown(runs, entries))
    print(markdown(runs, entries).split("## Method")[0])


if __name__ == "__main__":
    main()
