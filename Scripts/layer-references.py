#!/usr/bin/env python3
"""Lists, for each pair of layers (folders of Sources/KVOMediator), the types one layer's files name that
another layer declares: the references issue 33's one-way layering will check in CI once the upward
ones (Observable -> Dispatch/Tracking, Tracking -> Dispatch) are gone. Report only; run from the root."""
import re,os,collections
root='Sources/KVOMediator'
decl=collections.defaultdict(set)
files={}
for d in os.listdir(root):
    p=os.path.join(root,d)
    if not os.path.isdir(p) or d.endswith('.docc'): continue
    for f in os.listdir(p):
        if f.endswith('.swift'):
            src=open(os.path.join(p,f)).read()
            files[(d,f)]=src
            for m in re.finditer(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |private |fileprivate |package )?(?:final )?(?:class|struct|enum|protocol|typealias|actor)\s+(\w+)',src,re.M):
                decl[d].add(m.group(1))
owner={t:d for d,ts in decl.items() for t in ts}
refs=collections.defaultdict(lambda: collections.defaultdict(set))
for (d,f),src in files.items():
    code=re.sub(r'//.*','',src)
    for t,od in owner.items():
        if od!=d and re.search(r'\b'+re.escape(t)+r'\b',code):
            refs[(d,od)][t].add(f)
for (a,b),ts in sorted(refs.items()):
    print(f"{a} -> {b}: {sorted(ts)}")
