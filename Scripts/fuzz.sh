#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer: builds the fuzz package (Fuzz/, a nested package) with
# -sanitize=fuzzer,address, then runs each fuzz target for N seconds (default 60) on a copy of its
# committed corpus, in a temporary folder, so that a run never writes into the repository.
#
#   Scripts/fuzz.sh [seconds]
#
# Prints the executions per target. Exits non-zero if a target crashes (a broken invariant, a memory
# error, a leak or a hang), printing the crash file's path; Fuzz/README.md says how to reproduce it.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
targets=(FuzzStringKeyPaths FuzzPrograms)
build=(
    swift build --package-path Fuzz --scratch-path Fuzz/.build -c release
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -warnings-as-errors
)
# libFuzzer reports a crash itself; the Swift runtime's backtracer would hold the crashing process.
export SWIFT_BACKTRACE=enable=no

echo "== building the fuzz targets (release, libFuzzer + AddressSanitizer)"
# (gold warns once per ASan helper symbol that it cannot export; nothing to act on.)
"${build[@]}" 2>&1 | { grep -v "Cannot export local symbol" || true; }
bin="$("${build[@]}" --show-bin-path)"

work="$(mktemp -d "${TMPDIR:-/tmp}/kvo-fuzz.XXXXXX")"
failed=()
for target in "${targets[@]}"; do
    dir="$work/$target"
    mkdir -p "$dir/corpus" "$dir/crashes"
    cp Fuzz/Corpus/"$target"/* "$dir/corpus/"
    options=(-max_total_time="$seconds" -print_final_stats=1 -timeout=10 -artifact_prefix="$dir/crashes/")
    if [[ -f "Fuzz/$target.dict" ]]; then options+=(-dict="Fuzz/$target.dict"); fi
    echo
    echo "== $target for ${seconds} s"
    status=0
    "$bin/$target" "${options[@]}" "$dir/corpus" >"$dir/log" 2>&1 || status=$?
    executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")"
    echo "$target: ${executions:-?} executions (${rate:-?}/s), corpus $(ls "$dir/corpus" | wc -l) inputs"
    crashes=("$dir"/crashes/*)
    if [[ $status -ne 0 || -e "${crashes[0]}" ]]; then
        grep -E "Fatal error|ERROR:|SUMMARY:" "$dir/log" | head -5 || true
        for crash in "${crashes[@]}"; do
            if [[ -e "$crash" ]]; then echo "crash file: $crash"; fi
        done
        echo "full log: $dir/log"
        failed+=("$target")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo
    echo "fuzzing found crashes in: ${failed[*]} (files kept in $work; Fuzz/README.md says how to reproduce)"
    exit 1
fi
rm -rf "$work"
