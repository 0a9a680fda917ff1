#!/usr/bin/env bash
# Builds and runs every example program; each checks its own results and exits non-zero on a failure.
#
#   Scripts/run-examples.sh            # all examples
#   Scripts/run-examples.sh CocoaKVOStyle
set -euo pipefail
cd "$(dirname "$0")/.."

examples=("$@")
if [[ ${#examples[@]} -eq 0 ]]; then
    # Every Examples/<Name>/ is an executable target named <Name>. The demo is left to .ci/run, which runs it
    # with its own flags; it prints a demonstration rather than checking results.
    for directory in Examples/*/; do
        name=$(basename "$directory")
        [[ $name == KVOMediatorDemo ]] || examples+=("$name")
    done
fi

swift build -Xswiftc -warnings-as-errors
failed=()
for example in "${examples[@]}"; do
    printf '\n== %s\n' "$example"
    if ! swift run --skip-build "$example"; then
        failed+=("$example")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    printf '\nrun-examples: FAILED: %s\n' "${failed[*]}" >&2
    exit 1
fi
printf '\nrun-examples: all %d examples passed\n' "${#examples[@]}"
