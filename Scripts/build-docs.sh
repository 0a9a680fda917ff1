#!/usr/bin/env bash
# Builds the DocC documentation with the toolchain alone and fails on any DocC warning.
#
#   Scripts/build-docs.sh            # archive in .build-docs/KVOMediator.doccarchive
#   DOCS_OUTPUT=/tmp/docs Scripts/build-docs.sh
#
# The symbol graph is built in its own scratch path (.build-docs) so the main .build is untouched.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
symbol_graphs="$scratch/symbol-graphs"
output="${DOCS_OUTPUT:-$scratch/KVOMediator.doccarchive}"
catalog=Sources/KVOMediator/KVOMediator.docc

docc_tool() {
    if command -v docc >/dev/null 2>&1; then
        command -v docc
    elif [[ -x "$(dirname "$(command -v swift)")/docc" ]]; then
        echo "$(dirname "$(command -v swift)")/docc"
    elif command -v xcrun >/dev/null 2>&1; then
        xcrun --find docc
    else
        echo "build-docs: docc not found next to swift or on PATH" >&2
        return 1
    fi
}
docc=$(docc_tool)

build_symbol_graph() {
    mkdir -p "$symbol_graphs"
    swift build --target KVOMediator --scratch-path "$scratch" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbol_graphs"
}

echo "== symbol graph"
# The compiler writes the graph only when it compiles the module, so an up-to-date build keeps the
# graph it wrote last time; if that graph is gone, build again from scratch.
build_symbol_graph
if [[ ! -f "$symbol_graphs/KVOMediator.symbols.json" ]]; then
    rm -rf "$scratch"
    build_symbol_graph
fi

echo "== docc convert"
rm -rf "$output"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$symbol_graphs" \
    --output-path "$output" \
    --fallback-display-name KVOMediator \
    --fallback-bundle-identifier kvomediator \
    --warnings-as-errors >"$log" 2>&1 || status=$?
cat "$log"
# --warnings-as-errors already fails the run; the grep also catches a DocC that ignores it.
if [[ $status -ne 0 ]] || grep -qE '^(warning|error):' "$log"; then
    echo "build-docs: DocC reported problems (exit status $status)" >&2
    exit 1
fi
echo "build-docs: no warnings; documentation in $output"
