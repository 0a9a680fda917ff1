#!/usr/bin/env python3
"""Layers call one way, and unsafe code stays in the files that hold it (the design's engine room, issue 33).

1. Each folder of Sources/KVOMediator is a layer, ranked from the front ends down:
   Controller, Tokens, Streams > Dispatch > Tracking > Observable > Values > Internal.
   A file may name what a lower layer (or its own) declares at the top level (types, functions,
   variables); naming one of a higher layer is an upward reference. 2. The unsafe constructs (Unmanaged, raw pointers,
   unsafeBitCast, unsafeDowncast, _withUnsafeGuaranteedRef, @exclusivity(unchecked)) appear only in
   the files listed.

Scripts/engine-room-exceptions.txt lists the upward references and the unsafe files that are there
today. The check fails on one that is not listed, and on a listed one that is gone (take it off the
list, so that the list only shrinks). Comments and string literals are not code and are skipped.
Run from the package root: python3 Scripts/check-layers.py (--update rewrites the list as things are now,
after a change that removes an exception; it refuses to add a line unless given --allow-new too)."""
import collections
import os
import re
import sys

ROOT = 'Sources/KVOMediator'
RANK = {'Controller': 0, 'Tokens': 0, 'Streams': 0, 'Dispatch': 1, 'Tracking': 2, 'Observable': 3,
        'Values': 4, 'Internal': 5}
UNSAFE = re.compile(r'Unmanaged|Unsafe(Mutable)?RawPointer|unsafeBitCast|unsafeDowncast|'
                    r'_withUnsafeGuaranteedRef|@exclusivity\(unchecked\)')
# Top-level declarations visible to other files (a private one is another file's name only by chance).
DECLARATION = re.compile(r'^(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |package )?'
                         r'(?:final |nonisolated\(unsafe\) )?(class|struct|enum|protocol|typealias|actor|func|let|var)'
                         r'\s+(\w+)', re.M)
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
                    kind, declared = match.group(1), match.group(2)
                    # A function is named by a call that is no method call; anything else by its word.
                    pattern = (
                        (r'(?<![.\w])(?<!func )' + declared + r'\s*[({]') if kind == 'func' else (r'\b' + declared + r'\b')
                    )
                    owner[declared] = (layer, re.compile(pattern))
    found = set()
    for (layer, name), code in files.items():
        for declared, (declared_layer, pattern) in owner.items():
            if RANK[declared_layer] < RANK[layer] and pattern.search(code):
                found.add(f'up {layer}/{name} -> {declared_layer}.{declared}')
        if UNSAFE.search(code):
            found.add(f'unsafe {layer}/{name}')
    listed = set()
    if os.path.exists(EXCEPTIONS):
        listed = {line.strip() for line in open(EXCEPTIONS) if line.strip() and not line.startswith('#')}
    if sys.argv[1:] in (['--update'], ['--update', '--allow-new']):
        # After removing an exception: rewrites the list as it is now, header kept. Adding one takes
        # --allow-new, for a change of the check itself or a new home for an unsafe idea (Internal/).
        if found - listed and '--allow-new' not in sys.argv:
            sys.exit('check-layers: --update only removes lines; new: ' + ', '.join(sorted(found - listed)))
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
