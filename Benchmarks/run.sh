#!/usr/bin/env bash
# Runs the KVOMediator benchmark suite and writes RESULTS.md and results.json next to this script.
# RESULTS.md shows callgrind's instructions per operation beside the times, read from callgrind.json:
# run Scripts/callgrind.sh (a full run) first for counts of the code being measured; RESULTS.md names
# the commit they come from and says when the measured code changed since.
#
#   Benchmarks/run.sh                      # everything (a few minutes; the first build about 75 s more)
#   Benchmarks/run.sh --filter 'notify_1 .*'  # a subset (the regex must match the whole name);
#                                             # any `swift package benchmark` option passes through
#
# On a machine shared with other builds, serialise it: flock /tmp/kvo-build.lock Benchmarks/run.sh
set -euo pipefail

cd "$(dirname "$0")"
export_dir=.build/benchmark-export
rm -rf "$export_dir"
mkdir -p "$export_dir"

swift package --allow-writing-to-directory "$export_dir" \
    benchmark --target KVOBenchmarks --format jmh --path "$export_dir" --no-progress "$@"

python3 Scripts/summarize.py "$export_dir/Current_run.jmh.json" RESULTS.md results.json callgrind.json
# A filtered run measures only part of the suite: leave the README's table to full runs.
if [ "$#" -eq 0 ]; then
    python3 Scripts/readme_table.py results.json ../README.md
fi
echo "Wrote $(pwd)/RESULTS.md and $(pwd)/results.json"
