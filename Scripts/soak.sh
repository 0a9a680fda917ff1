#!/usr/bin/env bash
# The oversubscribed soak (the nested package Soak/): builds it in release, runs it at 1, 2, 16 and 64
# threads on however many cores there are (the 64-thread run for the given seconds, the others for a
# third of that), and prints one table. A violation, a leak or a stalled thread fails the script.
#
#   Scripts/soak.sh        # 60 s at 64 threads, 20 s at each of the others
#   Scripts/soak.sh 30     # what CI runs
#
# On a machine shared with other builds, serialise it: flock /tmp/kvo-build.lock Scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 3)); then
    echo "usage: Scripts/soak.sh [seconds, at least 3]" >&2
    exit 2
fi

build=(swift build -c release --package-path Soak --scratch-path Soak/.build)
"${build[@]}"
soak="$("${build[@]}" --show-bin-path)/KVOMediatorSoak"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
rows=()
failed=()
for threads in 1 2 16 64; do
    duration=$((threads == 64 ? seconds : seconds / 3))
    printf '\n== soak: KVOMediatorSoak --threads %d --seconds %d\n' "$threads" "$duration"
    if ! "$soak" --threads "$threads" --seconds "$duration" | tee "$log"; then
        failed+=("$threads threads")
    fi
    rows+=("$(grep '^RESULT ' "$log" || echo "RESULT threads=$threads stalled=1")")
done

# One row per run from its RESULT line: counts with thousands separators, latencies in ns, µs or ms.
printf '\n| threads | sets/s | notifications/s | p50 set | p99 set | max set |\n'
printf '|---:|---:|---:|---:|---:|---:|\n'
printf '%s\n' "${rows[@]}" | awk '
    function count(n,    s, out) {
        s = sprintf("%d", n); out = ""
        while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
        return s out
    }
    function span(ns) {
        if (ns < 1000) return ns " ns"
        if (ns < 999950) return sprintf("%.1f µs", ns / 1000)
        return sprintf("%.1f ms", ns / 1000000)
    }
    {
        delete f
        for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
        if ("stalled" in f) { printf "| %s | stalled | | | | |\n", f["threads"]; next }
        printf "| %s | %s | %s | %s | %s | %s |\n", f["threads"], count(f["sets_per_second"]),
            count(f["notifications_per_second"]), span(f["p50_ns"]), span(f["p99_ns"]), span(f["max_ns"])
    }'

if ((${#failed[@]} > 0)); then
    printf '\nsoak: FAILED at %s\n' "$(IFS=,; echo "${failed[*]}")" >&2
    exit 1
fi
printf '\nsoak: no violation, no leak, no stall\n'
