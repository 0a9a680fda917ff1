#!/usr/bin/env bash
# Exact instruction counts per operation, KVOMediator beside its peers, under valgrind's callgrind.
#
#   Benchmarks/Scripts/callgrind.sh                   # every scenario; writes Benchmarks/CALLGRIND.md
#                                                     # and Benchmarks/callgrind.json (read by summarize.py)
#   Benchmarks/Scripts/callgrind.sh '^notify_1\.'     # the scenarios whose name matches (grep -E); prints only
#
# Scenarios are `<metric>.<implementation>` (`KVOCallgrind --list`; sources in Benchmarks/Callgrind/).
# Each runs twice under callgrind, LOW and HIGH times (KVO_CALLGRIND_LOW / KVO_CALLGRIND_HIGH,
# 1,000 and 11,000 by default); (Ir(HIGH) - Ir(LOW)) / (HIGH - LOW) is one operation's cost, the
# setup, one-time costs and teardown cancelling out (a scenario with a divisor d in `--list` runs at
# LOW/d and HIGH/d). Counts are deterministic (one thread, and
# SWIFT_DETERMINISTIC_HASHING=1), so machine load does not change them: compare two tables to
# see what a change costs. Valgrind's `--collect-bus` also counts the atomic read-modify-writes (x86's
# locked instructions: compare-and-exchange, exchange, fetch-add, which every retain, release, try-retain,
# lock and gate operation is); they are reported per operation beside the instructions, with one decimal.
# The build and the runs each hold /tmp/kvo-build.lock, so do not wrap
# this script in that flock yourself. Needs valgrind (apt-get install -y valgrind). A full run took
# 220 s after the build at b9d0071, two thirds of it the scenarios of crowds (their setups, and k1000's
# and m10000's operations, which grow with the crowd), plus the first release build.
set -euo pipefail
shopt -s inherit_errexit

low=${KVO_CALLGRIND_LOW:-1000}
high=${KVO_CALLGRIND_HIGH:-11000}
filter=${1:-}
lock=/tmp/kvo-build.lock
benchmarks=$(cd "$(dirname "$0")/.." && pwd)
started=$SECONDS

command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install -y valgrind" >&2; exit 1; }
((high > low)) || { echo "KVO_CALLGRIND_HIGH ($high) must exceed KVO_CALLGRIND_LOW ($low)" >&2; exit 1; }

echo "Building KVOCallgrind (release)…" >&2
flock "$lock" swift build -c release --package-path "$benchmarks" --product KVOCallgrind >&2
built="$(flock "$lock" swift build -c release --package-path "$benchmarks" --show-bin-path)/KVOCallgrind"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 gives up on the DWARF 5 that clang writes for OpenCombine's C++ helper once that unit
# is not the binary's first ("Possibly corrupted debuginfo file"): run a copy without the .debug_*
# sections. Only debug information goes, no instruction; symbols stay.
binary="$work/KVOCallgrind"
objcopy --strip-debug "$built" "$binary"

scenarios=()
declare -A divisor  # scenario -> what its LOW and HIGH are divided by (see Callgrind/Scenario.swift)
while read -r name scenario_divisor; do
    if [[ -z $filter ]] || grep -qE -- "$filter" <<<"$name"; then
        scenarios+=("$name")
        divisor[$name]=$scenario_divisor
    fi
done < <("$binary" --list)
((${#scenarios[@]} > 0)) || { echo "no scenario matches '$filter'; see: $built --list" >&2; exit 1; }

# The instructions and the atomic read-modify-writes ("global bus events") callgrind counted for one run
# of a scenario (all threads, start to exit), as "<instructions> <atomics>".
instructions() {
    local log="$work/valgrind.log"
    if ! SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --collect-bus=yes --callgrind-out-file=/dev/null \
        "$binary" "$1" "$2" >/dev/null 2>"$log"; then
        echo "$1 $2 failed under valgrind:" >&2
        cat "$log" >&2
        return 1
    fi
    local collected
    collected=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$log")
    [[ -n $collected ]] || { echo "no 'Collected :' line for $1 $2:" >&2; cat "$log" >&2; return 1; }
    echo "$collected"
}

declare -A cost  # "<metric>.<column>" -> instructions per operation
declare -A atomics  # "<metric>.<column>" -> atomic read-modify-writes per operation
declare -A floor_name  # metric -> the floor implementation's name
metrics=()

measure() {
    local scenario a b per_operation scenario_low scenario_high
    for scenario in "${scenarios[@]}"; do
        scenario_low=$((low / divisor[$scenario]))
        scenario_high=$((high / divisor[$scenario]))
        read -r a a_atomics < <(instructions "$scenario" "$scenario_low")
        read -r b b_atomics < <(instructions "$scenario" "$scenario_high")
        per_operation=$(awk -v a="$a" -v b="$b" -v n=$((scenario_high - scenario_low)) \
            'BEGIN { printf "%.0f", (b - a) / n }')
        atomics_per_operation=$(awk -v a="$a_atomics" -v b="$b_atomics" -v n=$((scenario_high - scenario_low)) \
            'BEGIN { printf "%.1f", (b - a) / n }')
        printf '%-40s %8s instructions / op %6s atomics / op   (Ir %s at %s, %s at %s)\n' \
            "$scenario" "$per_operation" "$atomics_per_operation" "$a" "$scenario_low" "$b" "$scenario_high" >&2
        echo "$scenario $per_operation $atomics_per_operation"
    done
}

echo "Measuring ${#scenarios[@]} scenarios at $low and $high iterations…" >&2
exec 9>"$lock"
flock 9
results=$(measure)
flock -u 9

while read -r scenario per_operation atomics_per_operation; do
    metric=${scenario%%.*}
    implementation=${scenario#*.}
    case $implementation in
    ours | observation | opencombine) column=$implementation ;;
    *)
        column=floor
        floor_name[$metric]=$implementation
        ;;
    esac
    [[ -v "cost[$metric.ours]" || -v "cost[$metric.observation]" || -v "cost[$metric.opencombine]" ||
        -v "cost[$metric.floor]" ]] || metrics+=("$metric")
    cost[$metric.$column]=$per_operation
    atomics[$metric.$column]=$atomics_per_operation
done <<<"$results"

# 1234567 -> 1,234,567
thousands() {
    sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta' <<<"$1"
}

cell() {
    if [[ -v "cost[$1.$2]" ]]; then
        local value
        value=$(thousands "${cost[$1.$2]}")
        [[ $2 == floor ]] && value="$value (${floor_name[$1]})"
        echo "$value"
    else
        echo "—"
    fi
}

atomics_cell() {
    if [[ -v "atomics[$1.$2]" ]]; then echo "${atomics[$1.$2]}"; else echo "—"; fi
}

# A table of every metric, each cell made by the function named $1 (cell or atomics_cell).
table_of() {
    echo "| metric | ours | observation | opencombine | floor |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    local metric
    for metric in "${metrics[@]}"; do
        echo "| $metric | $("$1" "$metric" ours) | $("$1" "$metric" observation) | $("$1" "$metric" opencombine) | $("$1" "$metric" floor) |"
    done
}

table() { table_of cell; }
atomics_table() { table_of atomics_cell; }

echo
table
echo
echo "Atomic read-modify-writes per operation:"
echo
atomics_table
elapsed=$((SECONDS - started))
echo
echo "Took ${elapsed} s." >&2

# A filtered run measured only part of the table: leave CALLGRIND.md and callgrind.json to full runs.
[[ -z $filter ]] || exit 0

cd "$benchmarks"
generated=$(date -u '+%Y-%m-%d %H:%M')
full_commit=$(git rev-parse HEAD)
commit=$(git rev-parse --short HEAD)
dirty=()
for path in Sources Benchmarks/Callgrind Benchmarks/Models Benchmarks/Package.swift; do
    [[ -z $(git -C .. status --porcelain -- "$path") ]] || dirty+=("$path")
done
if ((${#dirty[@]} > 0)); then
    commit="$commit plus uncommitted changes to ${dirty[*]}"
fi

# The same counts for Scripts/summarize.py, which puts them beside the times in RESULTS.md:
# {"generated", "commit" (full), "uncommitted" (paths), "low", "high", "instructions": {scenario: count},
#  "atomics": {scenario: atomic read-modify-writes per operation}}.
echo "$results" >"$work/results"
python3 - "$work/results" "$generated" "$full_commit" "$low" "$high" "${dirty[@]}" >callgrind.json <<'PYTHON'
import json, sys
results, generated, commit, low, high, *uncommitted = sys.argv[1:]
with open(results) as file:
    rows = [line.split() for line in file if line.strip()]
instructions = {name: int(count) for name, count, _ in rows}
atomics = {name: float(count) for name, _, count in rows}
document = {"generated": generated + " UTC", "commit": commit, "uncommitted": uncommitted,
            "low": int(low), "high": int(high), "instructions": instructions, "atomics": atomics}
print(json.dumps(document, indent=2))
PYTHON
echo "Wrote $benchmarks/callgrind.json" >&2

{
    echo "# KVOMediator instruction counts"
    echo
    echo "Generated by \`Benchmarks/Scripts/callgrind.sh\` on $generated UTC at commit $commit —"
    echo "$(uname -sm); $(swift --version 2>/dev/null | head -n 1); $(valgrind --version). A full run took ${elapsed} s."
    echo
    echo "Instructions executed per operation (callgrind's Ir, all threads). Each scenario of"
    echo "\`Benchmarks/Callgrind\` ran as a release build under \`valgrind --tool=callgrind\`, once with"
    echo "$(thousands "$low") and once with $(thousands "$high") operations; a cell is (Ir($(thousands "$high")) − Ir($(thousands "$low")))"
    echo "/ $(thousands $((high - low))), rounded, so the setup, the first operation's one-time costs and the teardown"
    echo "cancel out (a scenario whose operation may cost a million instructions runs at a tenth of both"
    echo "counts: observe_unobserve_k* and _m*). A cell includes the loop, the new value and the callback's"
    echo "counting call, which the floors show to be a few instructions."
    echo
    echo "With one thread and \`SWIFT_DETERMINISTIC_HASHING=1\`, the counts are the same from run to run,"
    echo "whatever the machine's load: compare two tables to see what a change costs. They count"
    echo "instructions, not time: a cache miss costs nothing here and an atomic or a lock costs its few"
    echo "instructions, contended or not. RESULTS.md has the times."
    echo
    table
    echo
    echo "## Atomic read-modify-writes per operation"
    echo
    echo "An atomic read-modify-write (a compare-and-exchange, an exchange, a fetch-add: each retain, release"
    echo "and try-retain of an object, each lock and unlock, each gate's enter and leave) costs a few"
    echo "instructions but 6 ns or more on some CPUs, where a plain instruction costs a fraction of one."
    echo "Callgrind counts them (\`--collect-bus=yes\`, its \"global bus events\": x86's locked instructions) in"
    echo "the same runs, and a cell is the same difference divided by the same count, to one decimal."
    echo
    atomics_table
    echo
    echo "- **set_unobserved**: one set of a property nobody observes (floor: a plain stored property)."
    echo "- **notify_1**: one change delivered to one observer, set to end of callback (ours: a KVOController"
    echo "  block with [.new, .old]; observation: \`withObservationTracking\` re-armed in onChange;"
    echo "  opencombine: \`@Published\` + one \`sink\`; floor: a didSet calling one closure)."
    echo "- **set_unobserved_bridged**: set_unobserved of \`BridgedCounter\` (KeyValueObservable and \`Observable\`) once a"
    echo "  read has made its ObservationRegistrar; **_unread**: before any read (observation: \`@Observable\`'s)."
    echo "- **notify_1_bridged**: one change of \`BridgedCounter\` to \`withObservationTracking\` re-armed in onChange, as"
    echo "  SwiftUI tracks a body (observation: the same on \`@Observable\`); **_controller**: notify_1.ours on it."
    echo "- **notify_chain**: one change of \`c\` observed as \`\\.a.b.c\` (opencombine: \`map\` + \`switchToLatest\` per link)."
    echo "- **notify_chain_replace**: \`b\` of \`\\.a.b.c\` replaced by another leaf (two leaves alternate)."
    echo "- **notify_computed**: one change of one input of a computed property of two (opencombine: a sink per input)."
    echo "- **notify_1_crowded**: notify_1 while another controller observes 100,000 other objects."
    echo "- **notify_1_crowded_same_object**: notify_1 on \`p1000\` of \`Wide\` (1,001 \`@Observed\` properties) while"
    echo "  100,000 registrations, made before it, exist on its other properties (100 on each of \`p0\` … \`p999\`)."
    echo "- **notify_slots_100**: \`Wide\`'s \`p0\` … \`p99\` observed once each by one controller; \`p99\`, the last"
    echo "  registered, changes."
    echo "- **observe_unobserve**: one registration made and removed (ours: a controller's observe then unobserve;"
    echo "  observation, which has no cancel: \`withObservationTracking\` then the set that ends it;"
    echo "  opencombine: \`sink\` then \`cancel()\`); **_token**: ours through \`observe\` + \`invalidate()\`;"
    echo "  its peers are observe_unobserve's; **_chain**: the same for \`\\.a.b.c\`."
    echo "- **observe_unobserve_k1 / _k1000**: a controller already observing K of \`Wide\`'s properties observes and"
    echo "  unobserves \`p1000\`; **_m1 / _m10000**: M controllers observe a counter's \`x\`, and one more controller"
    echo "  observes and unobserves it. Each checks that all K or M registrations deliver, and that the measured"
    echo "  observe registers and its unobserve ends the registration."
    echo "- **stream_set_await**: one set, then the stream iterator's \`next()\` returns the new value (ours:"
    echo "  \`values(for:)\`; observation: \`Observations { model.x }\`; opencombine: an AsyncStream fed by a sink;"
    echo "  floor: an AsyncStream fed directly). The task runs on the main thread, on a task executor that"
    echo "  runs its jobs in order there (\`InlineExecutor\`), not on the global pool, so counts stay deterministic."
    echo "- **stream_wake_suspended**: the same streams, each set made while the consumer task waits in \`next()\`,"
    echo "  so that the set wakes it (a producer task sets and yields; both on \`InlineExecutor\`)."
    echo "- Issue 34's shapes (array_append_*, array_insert_remove_chain, teardown_fifo/lifo_1e5, notify_string_key(_typed),"
    echo "  set_by_name_*, notify_fanout_10 and array_append_fanout_10 per callback, notify_declared,"
    echo "  notify_chain5_replace_first, observe_unobserve_equal_literal, observe_unobserve_initial): see"
    echo "  \`Benchmarks/Callgrind/ShapeScenarios.swift\`"
    echo "  and RESULTS.md's table, which says what one operation is."
    echo "- Issue 35's rows (notify_1_distinct, transaction_set, transaction_delivery): see"
    echo "  \`Benchmarks/Callgrind/TransactionScenarios.swift\`."
    echo "- Issue 36's rows (element_change_10/_10k, element_append_remove_10/_10k): see"
    echo "  \`Benchmarks/Callgrind/ElementScenarios.swift\`."
    echo "- **notify_queue**: notify_1 delivered on a serial queue (\`delivery: .queue(q)\`), the operation waiting"
    echo "  with \`q.sync {}\` until the callback ran; floor: the same hop by hand (\`q.async\` and \`q.sync {}\`):"
    echo "  see \`Benchmarks/Callgrind/QueueDeliveryScenarios.swift\`. Dispatch wakes a worker thread for each"
    echo "  hop, so these two counts vary from run to run, by up to a tenth (the others do not)."
} >CALLGRIND.md
echo "Wrote $benchmarks/CALLGRIND.md" >&2
