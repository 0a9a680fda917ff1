#!/usr/bin/env python3
"""Layers call one way, and unsafe code stays in the files that hold it (DESIGN.md, issue 33).

1. Each folder of Sources/KVOMediator is a layer, ranked from the front ends down:
   Controller, Tokens, Streams > Dispatch > Tracking > Observable > Values > Internal.
   A file may name the types a lower layer (or its own) declares at the top level; naming one of a
   higher layer is an upward reference. 2. The unsafe constructs (Unmanaged, raw pointers,
   unsafeBitCast, unsafeDowncast, _withUnsafeGuaranteedRef, @exclusivity(unchecked)) appear only in
   the files listed.

Scripts/engine-room-exceptions.txt lists the upward references and the unsafe files that are there
today. The check fails on one that is not listed, and on a listed one that is gone (take it off the
list, so that the list only shrinks). Comments and string literals are not code and are skipped.
Run from the package root: python3 Scripts/check-layers.py (--update rewrites the list as things are now,
for after a change that removes an exception; review its diff: it must only lose lines)."""
import collections
import os
import re
import sys

ROOT = 'Sources/KVOMediator'
RANK = {'Controller': 0, 'Tokens': 0, 'Streams': 0, 'Dispatch': 1, 'Tracking': 2, 'Observable': 3,
        'Values': 4, 'Internal': 5}
UNSAFE = re.compile(r'Unmanaged|Unsafe(Mutable)?RawPointer|unsafeBitCast|unsafeDowncast|'
                    r'_withUnsafeGuaranteedRef|@exclusivity\(unchecked\)')
DECLARATION = re.compile(r'^(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |private |fileprivate |package )?'
                         r'(?:final )?(?:class|struct|enum|protocol|typealias|actor)\s+(\w+)', re.M)
EXCEPTIONS = 'Scripts/engine-room-exceptions.txt'


def code_of(source):
    """The source without comments and string literals (roughly: enough for names)."""
    source = re.sub(r'"""[\s\S]*?"""', '""', source)
    source = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)
    source = re.sub(r'/\*[\s\S]*?\*/', '', source)
    return re.sub(r'//.*', '', source)


def main():
    files = {}
    owner = {}
    for layer in sorted(os.listdir(ROOT)):
        folder = os.path.join(ROOT, layer)
        if not os.path.isdir(folder) or layer.endswith('.docc'):
            continue
        if layer not in RANK:
            sys.exit(f'check-layers: {folder} is no known layer; give it a rank in Scripts/check-layers.py')
        for name in sorted(os.listdir(folder)):
            if name.endswith('.swift'):
                code = code_of(open(os.path.join(folder, name)).read())
                files[(layer, name)] = code
                for match in DECLARATION.finditer(code):
                    owner[match.group(1)] = layer
    found = set()
    for (layer, name), code in files.items():
        for type_name, type_layer in owner.items():
            if RANK[type_layer] < RANK[layer] and re.search(r'\b' + re.escape(type_name) + r'\b', code):
                found.add(f'up {layer}/{name} -> {type_layer}.{type_name}')
        if UNSAFE.search(code):
            found.add(f'unsafe {layer}/{name}')
    listed = set()
    if os.path.exists(EXCEPTIONS):
        listed = {line.strip() for line in open(EXCEPTIONS) if line.strip() and not line.startswith('#')}
    if sys.argv[1:] == ['--update']:
        # After removing an exception (never to add one): rewrites the list as it is now, header kept.
        header = [line for line in open(EXCEPTIONS) if line.startswith('#')] if os.path.exists(EXCEPTIONS) else []
        with open(EXCEPTIONS, 'w') as out:
            out.writelines(header + [entry + '\n' for entry in sorted(found)])
        listed = found
    new, gone = sorted(found - listed), sorted(listed - found)
    unsafe_files = sum(1 for entry in found if entry.startswith('unsafe '))
    upward = collections.Counter(entry.split()[1].split('/')[0] for entry in found if entry.startswith('up '))
    print(f'check-layers: {unsafe_files} files with unsafe constructs (issue 33 asks for at most 12); '
          f'upward references by layer: {dict(sorted(upward.items())) or "none"}')
    for entry in new:
        print(f'  new, not allowed: {entry}')
    for entry in gone:
        print(f'  gone: {entry} (take it off {EXCEPTIONS})')
    if new or gone:
        sys.exit(1)


if __name__ == '__main__':
    main()
