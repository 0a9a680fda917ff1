#!/usr/bin/env python3
"""Layers call one way, and unsafe code stays in the few files that hold it (the design's engine room).

1. Each folder of Sources/KVOMediator is a layer, ranked from the front ends down:
   Controller, Tokens, Streams > Dispatch > Tracking > Observable > Values > Internal.
   A file may name what a lower layer (or its own) declares at the top level (types, functions,
   variables); naming one of a higher layer is an upward reference, and fails the check: a lower layer
   reaches up only through a class it declares and the layer above subclasses (SlotObserver,
   ReadRecorder). 2. The unsafe constructs (Unmanaged, raw pointers, unsafeBitCast, unsafeDowncast,
   _withUnsafeGuaranteedRef, @exclusivity(unchecked)) appear only in the files listed in
   Scripts/engine-room-exceptions.txt, at most 13 of them.

The check fails on an unsafe file that is not listed, on a listed one that is gone (take it off the
list, so that the list only shrinks), on more than 13, and on any upward reference. Comments and string
literals are not code and are skipped. Run from the package root: python3 Scripts/check-layers.py
(--update rewrites the list as things are now, after a change that removes an unsafe file; it refuses to
add a line unless given --allow-new too, for a new home of an unsafe idea in Internal/)."""
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
MOST_UNSAFE_FILES = 13


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
    upward_references = sorted(entry for entry in found if entry.startswith('up '))
    found -= set(upward_references)
    listed = {entry for entry in listed if not entry.startswith('up ')}
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
    unsafe_files = len(found)
    upward = collections.Counter(entry.split()[1].split('/')[0] for entry in upward_references)
    print(f'check-layers: {unsafe_files} files with unsafe constructs (at most {MOST_UNSAFE_FILES}); '
          f'upward references by layer: {dict(sorted(upward.items())) or "none"}')
    for entry in upward_references:
        print(f'  upward, not allowed: {entry} (reach up through a class this layer declares)')
    for entry in new:
        print(f'  new, not allowed: {entry}')
    for entry in gone:
        print(f'  gone: {entry} (take it off {EXCEPTIONS})')
    if unsafe_files > MOST_UNSAFE_FILES:
        print(f'  too many files with unsafe constructs: {unsafe_files}')
    if upward_references or new or gone or unsafe_files > MOST_UNSAFE_FILES:
        sys.exit(1)


if __name__ == '__main__':
    main()
