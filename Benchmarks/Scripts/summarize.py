#!/usr/bin/env python3
"""Turns the benchmark tool's JMH export into RESULTS.md and results.json.

Usage: summarize.py <Current_run.jmh.json> <RESULTS.md> <results.json> [callgrind.json]

Each benchmark is named "<metric> <implementation> x<operations per iteration>" (the JMH export
replaces spaces with underscores). Every figure is a median over the benchmark's iterations,
divided by the operations per iteration. With callgrind.json (written by Scripts/callgrind.sh), each
row also shows the instructions one operation executes, from the callgrind scenario of the same
metric and implementation. Standard library only.
"""

import json
import os
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
    "notify_1_distinct": ("ns", [], "notify_1 with .distinct, each set a new value"),
    "transaction_set": ("ns", [], "one set in a transaction that set the property before (one observer)"),
    "transaction_delivery": ("ns", [], "a transaction of one set: the set and its one record at the end"),
    "element_change_10": ("ns", [], "one element's property changed, 10 elements observed each (observe(_:each:keyPath:))"),
    "element_change_10k": ("ns", [], "the same, 10,000 elements"),
    "element_append_remove_10": ("ns", [], "an element appended and removed through the proxy, 10 elements observed each"),
    "element_append_remove_10k": ("ns", [], "the same, 10,000 elements"),
    "set_unobserved_bridged": ("ns", ["Observation"], "one set, nobody observing, of a class bridged to Observation"),
    "notify_1_bridged": ("ns", ["Observation"], "one change of a bridged class, one withObservationTracking observer"),
    "notify_fanout_10": ("ns", [], "one callback (per observer per change), 10 observers"),
    "notify_fanout_100": ("ns", [], "one callback (per observer per change), 100 observers"),
    "notify_fanout_1000": ("ns", [], "one callback (per observer per change), 1,000 observers"),
    "notify_chain": ("ns", ["Observation", "OpenCombine"], "one change of c observed as \\.a.b.c"),
    "notify_chain_replace": ("ns", ["Observation", "OpenCombine"], "b replaced (two leaves alternate) in \\.a.b.c"),
    "notify_computed": ("ns", ["Observation", "OpenCombine"], "one change of a dependency of a computed property"),
    "notify_slots_100": ("ns", [], "one change of the last registered of 100 observed slots of one object"),
    "notify_1_crowded": ("ns", [], "notify_1 with 1e5 unrelated registrations alive"),
    "notify_1_crowded_same_object": ("ns", [], "notify_1 with 1e5 registrations alive on other slots of the same object"),
    "observe_unobserve": ("ns", ["Observation", "OpenCombine"], "one registration made and removed"),
    "observe_unobserve_token": ("ns", ["Observation", "OpenCombine"], "the same through a token"),
    "observe_unobserve_chain": ("ns", ["Observation", "OpenCombine"], "one registration of \\.a.b.c made and removed"),
    "observe_unobserve_k1": ("ns", [], "one registration made and removed, its controller observing 1 other key path of the object"),
    "observe_unobserve_k1000": ("ns", [], "one registration made and removed, its controller observing 1,000 other key paths of the object"),
    "observe_unobserve_m1": ("ns", [], "one registration made and removed, 1 other controller observing the property"),
    "observe_unobserve_m10000": ("ns", [], "one registration made and removed, 10,000 other controllers observing the property"),
    "array_append_observed_1k": ("ns", ["Observation", "OpenCombine"], "one element appended through a kept proxy to an array of 1,000, one observer"),
    "array_append_observed_10k": ("ns", ["Observation", "OpenCombine"], "the same, to an array of 10,000"),
    "array_append_unobserved_10k": ("ns", ["plainStored"], "one element appended through a kept proxy to an array of 10,000, nobody observing"),
    "array_insert_remove_chain": ("ns", ["plainStored"], "one insert at 0 or remove at 0 through the proxy, observed as \\.owner.items"),
    "notify_string_key": ("ns", [], "notify_1 observed through the string key path \"x\""),
    "notify_string_key_typed": ("ns", [], "the same, observed as: Int.self (no Any, no cast in the callback)"),
    "set_by_name_unobserved": ("ns", [], "one setValue(_:atKeyPath: \"x\") of an Int, nobody observing"),
    "set_by_name_boxed_unobserved": ("ns", [], "the same Int passed as Any? (Cocoa's form), nobody observing"),
    "set_by_name_observed": ("ns", [], "one setValue(_:atKeyPath: \"x\") of an Int, one observer"),
    "notify_declared": ("ns", ["tracked", "OpenCombine"], "one change of x, observed through a cache-backed doubled that declares x"),
    "notify_chain5_replace_first": ("ns", ["Observation"], "a replaced (two whole chains alternate) in \\.a.b.c.d.e"),
    "observe_unobserve_equal_literal": ("ns", [], "observe_unobserve, unobserve given an equal key path that is another object"),
    "observe_unobserve_initial": ("ns", ["OpenCombine"], "observe_unobserve with .initial (OpenCombine's sink delivers the current value too)"),
    "teardown_fifo_1e5": ("ns", [], "one of 1e5 tokens on one property invalidated, oldest first"),
    "teardown_lifo_1e5": ("ns", [], "one of 1e5 tokens on one property invalidated, newest first"),
    "stream_set_await": ("ns", ["Observation", "OpenCombine", "asyncStream"], "one set, then the stream's next() returns it"),
    "stream_wake_suspended": ("ns", ["Observation", "OpenCombine", "asyncStream"], "one set while the consumer waits in next(), which then returns it"),
    "teardown_1e3": ("ns", [], "one observation removed by releasing a controller of 1e3"),
    "teardown_1e4": ("ns", [], "one observation removed by releasing a controller of 1e4"),
    "teardown_1e5": ("ns", [], "one observation removed by releasing a controller of 1e5"),
    "memory_per_registration": ("bytes", ["Observation", "OpenCombine"], "net requested heap bytes per live registration (1e5 alive)"),
    "two_threads": ("ratio", [], "throughput of 2 threads / 1 thread, same total sets (ideal 2.0)"),
    "two_threads_chain": ("ratio", [], "throughput of 2 threads / 1 thread, each object the leaf of an observed \\.a.b.c (ideal 2.0)"),
}

# The ratio metrics: serial time / parallel time.
THREAD_METRICS = {"two_threads", "two_threads_chain"}

# Implementation names here -> the callgrind scenarios' (`<metric>.<implementation>`).
CALLGRIND_NAMES = {
    "ours": "ours",
    "Observation": "observation",
    "OpenCombine": "opencombine",
    "didSetClosure": "didset",
    "plainStored": "plain",
    "asyncStream": "asyncstream",
    "tracked": "tracked",
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


def build_metrics(runs, counts, atomic_counts=None):
    """The entries of results.json, in METRICS order, for the metrics that ran.

    `counts` is callgrind's {scenario: instructions per operation} (empty without callgrind.json); an
    entry's "instructions" has a count for each implementation that has a scenario, and its "atomics"
    the atomic read-modify-writes per operation from `atomic_counts` ({scenario: count}), where known.
    """
    atomic_counts = atomic_counts or {}
    entries = []
    for metric, (unit, peers, _) in METRICS.items():
        if metric in THREAD_METRICS:
            serial, parallel = value(runs, metric, "serial"), value(runs, metric, "parallel")
            if serial is not None and parallel is not None:
                entries.append({"name": metric, "unit": unit, "ours": round(serial / parallel, 3), "peers": {}})
            continue
        ours = value(runs, metric, "ours")
        if ours is None:
            continue
        # The token variant is compared with the same peer runs as the controller variant.
        found = {peer: value(runs, peer_metric(metric), peer) for peer in peers}
        entry = {
            "name": metric,
            "unit": unit,
            "ours": rounded(ours),
            "peers": {peer: rounded(v) for peer, v in found.items() if v is not None},
        }
        for key, table in (("instructions", counts), ("atomics", atomic_counts)):
            found_counts = {
                implementation: count
                for implementation in ["ours"] + list(entry["peers"])
                if (count := instruction_count(table, metric, implementation)) is not None
            }
            if found_counts:
                entry[key] = found_counts
        entries.append(entry)
    return entries


def peer_metric(metric):
    return metric.removesuffix("_token")


def instruction_count(counts, metric, implementation):
    """Callgrind's instructions per operation for one row, if it has a scenario."""
    name = CALLGRIND_NAMES.get(implementation)
    if name is None:
        return None
    if implementation != "ours":
        metric = peer_metric(metric)
    return counts.get(f"{metric}.{name}")


def rounded(x):
    return round(x, 3) if x < 10 else round(x, 1)


def goals(entries):
    """(goal text, measured text, by instructions text, holds) for each goal; holds is judged by time."""
    by_name = {entry["name"]: entry for entry in entries}

    def ours(name):
        return by_name[name]["ours"] if name in by_name else None

    def peer(name, who):
        return by_name.get(name, {}).get("peers", {}).get(who)

    def instructions(name, who="ours"):
        return by_name.get(name, {}).get("instructions", {}).get(who)

    rows = []

    def ratio_goal(text, numerator, denominator, limit, counts=(None, None), at_least=False):
        by_instructions = ""
        if None not in counts and counts[1] != 0:
            by_instructions = f"{counts[0] / counts[1]:.3f} ({counts[0]:,} / {counts[1]:,})"
        if numerator is None or denominator is None or denominator == 0:
            rows.append((text, "not measured", by_instructions, None))
            return
        ratio = numerator / denominator
        holds = ratio >= limit if at_least else ratio <= limit
        rows.append((text, f"{ratio:.3f} ({fmt(numerator)} / {fmt(denominator)})", by_instructions, holds))

    def versus_peer(text, metric, who, limit, measured_against=None):
        against = measured_against or metric
        ratio_goal(
            text, ours(metric), peer(against, who), limit,
            (instructions(metric), instructions(against, who)),
        )

    def versus_ours(text, metric, other, limit):
        ratio_goal(text, ours(metric), ours(other), limit, (instructions(metric), instructions(other)))

    versus_peer("set_unobserved ≤ 0.1 × Observation's", "set_unobserved", "Observation", 0.1)
    versus_peer("set_unobserved ≤ 1.3 × a plain stored property", "set_unobserved", "plainStored", 1.3)
    versus_peer("notify_1 ≤ 0.2 × OpenCombine's", "notify_1", "OpenCombine", 0.2)
    versus_peer("notify_1 ≤ 0.05 × Observation's", "notify_1", "Observation", 0.05)
    versus_peer("notify_1 ≤ 25 × the didSet closure", "notify_1", "didSetClosure", 25)
    versus_peer("notify_1 ≤ 4 × the didSet closure", "notify_1", "didSetClosure", 4)
    atomics = by_name.get("notify_1", {}).get("atomics", {}).get("ours")
    rows.append((
        "notify_1 ≤ 4 atomic read-modify-writes (callgrind's count)",
        f"{atomics:g} per notification" if atomics is not None else "not measured",
        "",
        atomics <= 4 if atomics is not None else None,
    ))
    versus_peer(
        "set_unobserved_bridged ≤ 1 × Observation's (a class bridged to Observation)",
        "set_unobserved_bridged", "Observation", 1.0,
    )
    versus_peer(
        "notify_1_bridged ≤ 1 × Observation's (a class bridged to Observation)", "notify_1_bridged", "Observation", 1.0
    )
    versus_ours(
        "notify_fanout_1000 per observer ≤ 1.5 × notify_fanout_10's", "notify_fanout_1000", "notify_fanout_10", 1.5
    )
    versus_ours("notify_chain ≤ 2 × notify_1", "notify_chain", "notify_1", 2)
    versus_ours("notify_1_distinct ≤ 1.1 × notify_1 (values that differ)", "notify_1_distinct", "notify_1", 1.1)
    versus_ours("transaction_set ≤ 3 × set_unobserved", "transaction_set", "set_unobserved", 3)
    versus_ours("transaction_delivery ≤ 2 × notify_1", "transaction_delivery", "notify_1", 2)
    versus_ours("element_change_10 ≤ 2 × notify_1", "element_change_10", "notify_1", 2)
    versus_ours("element_change_10k ≤ 1.2 × element_change_10", "element_change_10k", "element_change_10", 1.2)
    versus_ours(
        "element_append_remove_10k ≤ 1.2 × element_append_remove_10 (a subscription, not a rescan)",
        "element_append_remove_10k", "element_append_remove_10", 1.2,
    )
    versus_peer("notify_chain_replace ≤ 0.15 × Observation's", "notify_chain_replace", "Observation", 0.15)
    versus_peer("notify_computed ≤ 0.15 × Observation's", "notify_computed", "Observation", 0.15)
    versus_peer("notify_computed ≤ 0.5 × OpenCombine's", "notify_computed", "OpenCombine", 0.5)
    versus_ours("notify_slots_100 ≤ 1.2 × notify_1", "notify_slots_100", "notify_1", 1.2)
    versus_ours("notify_1_crowded ≤ 1.2 × notify_1", "notify_1_crowded", "notify_1", 1.2)
    versus_ours(
        "notify_1_crowded_same_object ≤ 1.2 × notify_1", "notify_1_crowded_same_object", "notify_1", 1.2
    )
    versus_peer("observe_unobserve ≤ 0.5 × Observation's one-shot cycle", "observe_unobserve", "Observation", 0.5)
    if "observe_unobserve_token" in by_name:
        versus_peer(
            "observe_unobserve (token) ≤ 0.5 × Observation's one-shot cycle",
            "observe_unobserve_token", "Observation", 0.5, measured_against="observe_unobserve",
        )
    versus_peer(
        "observe_unobserve_chain ≤ 0.5 × Observation's one-shot cycle", "observe_unobserve_chain", "Observation", 0.5
    )
    versus_ours("observe_unobserve_k1000 ≤ 1.5 × observe_unobserve_k1", "observe_unobserve_k1000", "observe_unobserve_k1", 1.5)
    versus_ours(
        "observe_unobserve_m10000 ≤ 1.5 × observe_unobserve_m1", "observe_unobserve_m10000", "observe_unobserve_m1", 1.5
    )
    versus_peer("stream_set_await ≤ 0.5 × Observations'", "stream_set_await", "Observation", 0.5)
    versus_peer("stream_set_await ≤ 1 × an AsyncStream fed by an OpenCombine sink", "stream_set_await", "OpenCombine", 1)
    versus_ours("teardown_1e5 per observation ≤ 1.5 × teardown_1e3's", "teardown_1e5", "teardown_1e3", 1.5)
    # Issue 34's shapes.
    versus_ours(
        "array_append_observed_10k ≤ 1.2 × array_append_observed_1k",
        "array_append_observed_10k", "array_append_observed_1k", 1.2,
    )
    versus_ours("array_append_observed_1k ≤ 3 × notify_1", "array_append_observed_1k", "notify_1", 3)
    versus_peer(
        "array_append_unobserved_10k ≤ 5 × a plain append", "array_append_unobserved_10k", "plainStored", 5
    )
    versus_ours("array_insert_remove_chain ≤ 3 × notify_1", "array_insert_remove_chain", "notify_1", 3)
    versus_ours("notify_string_key ≤ 1.5 × notify_1", "notify_string_key", "notify_1", 1.5)
    versus_ours("notify_string_key_typed ≤ 1.5 × notify_1", "notify_string_key_typed", "notify_1", 1.5)
    set_by_name = instructions("set_by_name_unobserved")
    rows.append((
        "set_by_name_unobserved ≤ 400 instructions",
        f"{set_by_name:,} instructions" if set_by_name is not None else "not measured",
        "",
        set_by_name <= 400 if set_by_name is not None else None,
    ))
    versus_ours("set_by_name_observed ≤ 2 × notify_1", "set_by_name_observed", "notify_1", 2)
    versus_ours("notify_fanout_10 per observer ≤ 0.6 × notify_1", "notify_fanout_10", "notify_1", 0.6)
    versus_peer("notify_declared ≤ 1.2 × the tracked equivalent", "notify_declared", "tracked", 1.2)
    versus_peer("notify_declared ≤ 0.5 × OpenCombine's map", "notify_declared", "OpenCombine", 0.5)
    versus_ours("notify_chain5_replace_first ≤ 6 × notify_1", "notify_chain5_replace_first", "notify_1", 6)
    versus_ours("notify_chain_replace ≤ 3 × notify_1", "notify_chain_replace", "notify_1", 3)
    versus_ours("notify_computed ≤ 3 × notify_1", "notify_computed", "notify_1", 3)
    versus_ours(
        "observe_unobserve_equal_literal ≤ 1.05 × observe_unobserve",
        "observe_unobserve_equal_literal", "observe_unobserve", 1.05,
    )
    versus_ours(
        "observe_unobserve_initial ≤ 1.5 × observe_unobserve", "observe_unobserve_initial", "observe_unobserve", 1.5
    )
    versus_ours("teardown_fifo_1e5 ≤ 1.5 × teardown_lifo_1e5", "teardown_fifo_1e5", "teardown_lifo_1e5", 1.5)
    memory = ours("memory_per_registration")
    rows.append((
        "memory_per_registration ≤ 200 bytes",
        f"{fmt(memory)} bytes" if memory is not None else "not measured",
        "",
        memory <= 200 if memory is not None else None,
    ))
    for metric in ("two_threads", "two_threads_chain"):
        threads = ours(metric)
        rows.append((
            f"{metric} ≥ 1.7",
            f"{threads:.3f}" if threads is not None else "not measured",
            "",
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


def load_callgrind(path):
    """callgrind.json's instruction and atomic counts and a sentence saying where they come from ({}, {}, None
    without it)."""
    if path is None or not os.path.exists(path):
        return {}, {}, None
    with open(path) as file:
        document = json.load(file)
    commit = document["commit"]
    where = f"commit {commit[:7]}"
    if document.get("uncommitted"):
        where += " plus uncommitted changes to " + ", ".join(document["uncommitted"])
    note = (
        f"Instructions per operation are callgrind's, from `Scripts/callgrind.sh` ({document['generated']}, {where}; "
        "see CALLGRIND.md): deterministic, so they show what a change costs where times are noisy."
    )
    changed = measured_code_changed_since(commit)
    if changed is None:
        note += f" This repository does not know {commit[:7]}: they may be stale."
    elif changed:
        note += (
            f" **They may be stale**: {', '.join(changed)} changed since {commit[:7]}; run `Scripts/callgrind.sh`"
            " again for counts of this code."
        )
    return document["instructions"], document.get("atomics", {}), note


def measured_code_changed_since(commit):
    """The measured code's paths that differ between `commit` and the work tree (None if git cannot tell)."""
    repository = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    paths = ["Sources", "Benchmarks/Callgrind", "Benchmarks/Models", "Benchmarks/Package.swift"]
    try:
        result = subprocess.run(
            ["git", "-C", repository, "diff", "--name-only", commit, "--", *paths],
            capture_output=True, text=True,
        )
    except OSError:
        return None
    if result.returncode != 0:
        return None
    changed = {line.split("/")[0] if line.startswith("Sources") else "/".join(line.split("/")[:2])
               for line in result.stdout.splitlines() if line}
    return sorted(changed)


def markdown(runs, entries, callgrind_note):
    lines = [
        "# KVOMediator benchmarks",
        "",
        f"Generated by `Benchmarks/run.sh` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC — {machine()}.",
        "All figures are medians of one run; every implementation of a metric ran in the same run.",
    ]
    if callgrind_note:
        lines.append(callgrind_note)
    else:
        lines.append("No instruction counts: run `Scripts/callgrind.sh` (it writes callgrind.json), then this again.")
    lines += [
        "",
        "## Goals",
        "",
        "Each goal holds or not by the times of this run; `by instructions` is the same ratio of callgrind's",
        "counts, where both sides have a scenario. Observation's one-shot cycle (observe_unobserve*) includes",
        "the set that fires it: its registration has no public `cancel()`.",
        "",
        "| goal | measured | by instructions | holds |",
        "| --- | --- | --- | --- |",
    ]
    for text, measured, by_instructions, holds in goals(entries):
        mark = "—" if holds is None else ("✅ yes" if holds else "❌ no")
        lines.append(f"| {text} | {measured} | {by_instructions} | {mark} |")

    lines += [
        "",
        "## What each callback is given",
        "",
        "The peers do not hand their callbacks the same thing, which the rows compare as they are:",
        "",
        "- **ours**: a `KVOChange` with the old and the new value (`[.new, .old]`), after the set; a collection",
        "  proxy's record also carries the kind and the indexes, and the inserted or removed elements.",
        "- **Observation**: `withObservationTracking`'s `onChange` runs once, at `willSet`, with no value; the",
        "  relay registers again and reads the property then, so it sees the *old* value, never the new one.",
        "- **OpenCombine**: `$x.sink` gets the new value only, at `willSet` (`@Published`), and its subscription",
        "  delivers the current value at once: compare it with `observe_unobserve_initial`, which does too.",
        "- **didSetClosure**: a `didSet` calling one closure with the old and the new value (the floor).",
        "",
        "## Results",
        "",
        "Time is nanoseconds per operation; mallocs per operation; instructions per operation from callgrind",
        "(— where no scenario measures that row); atomics per operation are the atomic read-modify-writes",
        "(compare-and-exchange, exchange, fetch-add: each retain, release, try-retain, lock, unlock and gate",
        "step) that callgrind counted in the same runs (`--collect-bus`); each costs about 6 ns on some Intel",
        "CPUs whatever its instructions. `ours ÷` is ours divided by that row (below 1 means ours is cheaper).",
        "",
        "| metric | one operation | implementation | median | instructions / op | atomics / op | mallocs / op | ours ÷ | samples |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for entry in entries:
        metric, unit = entry["name"], entry["unit"]
        what = METRICS[metric][2]
        if metric in THREAD_METRICS:
            for implementation in ("serial", "parallel"):
                run = runs[(metric, implementation)]
                lines.append(
                    f"| {metric} | {what} | {implementation} ({run['operations']:,} sets) "
                    f"| {fmt(run['ns'] * run['operations'] / 1e6)} ms | | | {fmt(run['mallocs'])} | | {run['samples']} |"
                )
            lines.append(f"| {metric} | | **ratio** | **{entry['ours']:.3f}** | | | | | |")
            continue
        suffix = " bytes" if unit == "bytes" else " ns"
        implementations = [("ours", entry["ours"])] + list(entry["peers"].items())
        for implementation, figure in implementations:
            run = runs[(metric if implementation == "ours" else peer_metric(metric), implementation)]
            ratio = "" if implementation == "ours" else f"{entry['ours'] / figure:.3f}" if figure else "∞"
            name = f"**{implementation}**" if implementation == "ours" else implementation
            count = entry.get("instructions", {}).get(implementation)
            instructions = f"{count:,}" if count is not None else "—"
            atomic_count = entry.get("atomics", {}).get(implementation)
            atomics = f"{atomic_count:g}" if atomic_count is not None else "—"
            lines.append(
                f"| {metric} | {what} | {name} | {fmt(figure)}{suffix} | {instructions} | {atomics} | {fmt(run['mallocs'])} "
                f"| {ratio} | {run['samples']} |"
            )

    lines += [
        "",
        "## Method",
        "",
        "- Suite: `Benchmarks/Benchmarks/KVOBenchmarks/` with ordo-one/benchmark 1.38.1 (malloc interposer on),",
        "  exported with `--format jmh` and read by `Scripts/summarize.py`. Each benchmark name ends in",
        "  `x<N>`: the operations one iteration makes; medians are divided by N.",
        "- Instructions / op: `Scripts/callgrind.sh` runs the scenarios of `Benchmarks/Callgrind/` (the same",
        "  models, from `Benchmarks/Models/`, and the same observers) under valgrind's callgrind; see CALLGRIND.md.",
        "- ours: `KVOController.observe(_:keyPath:options: [.new, .old])` with a block that hands",
        "  `change.newValue` to `blackHole`; every peer's callback does the same with its value.",
        "- set_unobserved: each set goes through one non-inlined function per implementation (the same",
        "  call overhead for all), so that a loop of plain stores cannot be folded into one.",
        "- Observation peers: `withObservationTracking` whose onChange registers again, the documented",
        "  way to keep observing (onChange fires once, on willSet, with no value); for a chain or a computed",
        "  property the re-registration re-reads the whole key path, as it must.",
        "- observe_unobserve and observe_unobserve_chain: Observation has no public cancel, so its one-shot",
        "  cycle is `withObservationTracking` plus one set (of `x`, or of the chain's `c`) that fires the",
        "  onChange and so removes the registration: **Observation's figure includes that set**. Ours re-registers",
        "  the same key path literal each time (its best case; `_k*` and `_m*` add the rest of the table).",
        "  OpenCombine's cycle is a `sink` (the `map` + `switchToLatest` chain for `\\.a.b.c`) + `cancel()`; a",
        "  sink also receives the current value on subscription.",
        "- OpenCombine peers: `@Published` + `sink`; the chain uses `map` + `switchToLatest` per step;",
        "  the computed property uses one sink per dependency (OpenCombine 0.14 has no `combineLatest`).",
        "- notify_chain_replace: `b` of `\\.a.b.c` is set alternately to two prepared leaves whose `c` differ, so",
        "  each set moves the observation to another object and changes the value (Observation: the relay",
        "  re-reads `root.a.b.c`; OpenCombine: `switchToLatest` subscribes to the new leaf's `$c`).",
        "- notify_slots_100: one controller observes `p0` … `p99` of `Wide` (an object with 1,001 `@Observed`",
        "  properties), each once; `p99`, the last registered, changes.",
        "- set_unobserved_bridged, notify_1_bridged: `BridgedCounter`, a KeyValueObservable class that also",
        "  conforms to `Observable`, beside Observation's `@Observable` counter: a set once a read has made",
        "  its ObservationRegistrar; a change observed by `withObservationTracking` re-registered in onChange.",
        "- notify_1_crowded: notify_1 while another controller holds 1e5 registrations on 1e5 other objects.",
        "- notify_1_crowded_same_object: notify_1 on `Wide`'s `p1000` while 1e5 registrations (100 on each of",
        "  `p0` … `p999`, one controller each) exist on the same object, registered before the measured one.",
        "- observe_unobserve_kK: one controller already observes K distinct key paths of one `Wide` (`p0` …);",
        "  it observes and unobserves `p1000`. observe_unobserve_mM: M controllers already observe `x` of one",
        "  counter; one more controller observes and unobserves it. 100 cycles an iteration.",
        "- stream_set_await: one set, then `await iterator.next()` returns the new value; one iterator for",
        "  the whole run, on Swift's global executor (each iteration is a task). ours: `values(for: \\.x)`;",
        "  Observation: Swift 6.2's `Observations { model.x }`; OpenCombine: an `AsyncStream` fed by a",
        "  `$x.sink`; asyncStream: an `AsyncStream` fed directly (the floor).",
        "- stream_wake_suspended: the same streams, each set made while the consumer task is suspended in",
        "  `next()`, so that the set wakes it; consumer and producer run on one thread (`InlineExecutor`,",
        "  Models/SuspendedConsumer.swift), the producer yielding after each set. Each iteration makes its",
        "  model and stream and makes 10,000 sets.",
        "- teardown_N: one controller observes N objects (one observation each); only the controller's",
        "  release is measured.",
        "- memory_per_registration: the benchmark's `memoryLeakedBytes` metric (malloc interposer:",
        "  requested bytes minus freed bytes in the measured region) while 1e5 registrations are made and",
        "  kept alive, divided by 1e5. Objects, observer and controller exist before the region. Requested",
        "  bytes exclude malloc's per-chunk overhead (about 8–16 bytes per malloc; see mallocs / op).",
        "- two_threads: two fresh threads each make 1e5 sets on their own observed object, against one",
        "  fresh thread making all 2e5 sets on the same two objects; ratio = serial time / parallel time.",
        "  two_threads_chain: the same with 2e4 sets per object, each object the leaf `c` of a chain",
        "  `\\.a.b.c` observed by its own controller.",
        "",
    ]
    return "\n".join(lines)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    source, markdown_path, json_path = sys.argv[1:4]
    counts, atomic_counts, callgrind_note = load_callgrind(sys.argv[4] if len(sys.argv) == 5 else None)
    runs = load(source)
    entries = build_metrics(runs, counts, atomic_counts)
    with open(json_path, "w") as file:
        json.dump({"metrics": entries}, file, indent=2, ensure_ascii=False)
        file.write("\n")
    text = markdown(runs, entries, callgrind_note)
    with open(markdown_path, "w") as file:
        file.write(text)
    print(text.split("## Method")[0])


if __name__ == "__main__":
    main()
