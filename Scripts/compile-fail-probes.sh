#!/usr/bin/env bash
# Compile-fail probes (the nested package CompileFailProbes/): builds each program of CompileFailProbes/Cases
# against the library. A program with `// expect-error: TEXT` lines must fail to build, every TEXT must be in
# one of its errors, and every error must contain one of them; a program with `// expect: builds` must build
# with no error. Prints a line per program; any other outcome fails the script.
#
#   Scripts/compile-fail-probes.sh
set -euo pipefail
cd "$(dirname "$0")/.."

package=CompileFailProbes
current=$package/Current
log=$(mktemp)
trap 'rm -rf "$log" "$current"' EXIT
failed=0
for program in "$package"/Cases/*.swift; do
    name=$(basename "$program" .swift)
    rm -rf "$current"
    mkdir -p "$current"
    cp "$program" "$current/$name.swift"
    mapfile -t expected < <(sed -n 's|^// expect-error: ||p' "$program")
    builds=$(grep -c '^// expect: builds$' "$program" || true)
    if ((${#expected[@]} == 0 && builds == 0)) || ((${#expected[@]} > 0 && builds > 0)); then
        echo "FAIL $name: give either '// expect-error: TEXT' lines or '// expect: builds'"
        failed=1
        continue
    fi
    status=0
    swift build --package-path "$package" --scratch-path "$package/.build" -Xswiftc -warnings-as-errors >"$log" 2>&1 ||
        status=$?
    mapfile -t errors < <(grep -E "^[^ ].*(error|warning): " "$log" | grep -F "$current/" | sort -u)
    if ((builds > 0)); then
        if ((status == 0)) && grep -qE "Compiling Probe .*$name\.swift|Compiling Probe$" "$log"; then
            echo "ok   $name: builds"
        else
            echo "FAIL $name: must build, but:"
            cat "$log"
            failed=1
        fi
        continue
    fi
    problems=()
    ((status != 0)) || problems+=("it built")
    ((${#errors[@]} > 0)) || problems+=("no error in the program itself")
    for text in "${expected[@]}"; do
        printf '%s\n' "${errors[@]}" | grep -qF -- "$text" || problems+=("no error says: $text")
    done
    for error in "${errors[@]}"; do
        matched=0
        for text in "${expected[@]}"; do
            [[ $error == *"$text"* ]] && matched=1
        done
        ((matched)) || problems+=("unexpected: $error")
    done
    if ((${#problems[@]} == 0)); then
        echo "ok   $name: rejected with the expected message"
        printf '       %s\n' "${errors[@]}"
    else
        echo "FAIL $name:"
        printf '       %s\n' "${problems[@]}"
        cat "$log"
        failed=1
    fi
done
exit $failed
