#ifndef KVO_RUNTIME_SHIMS_H
#define KVO_RUNTIME_SHIMS_H

#include <stdbool.h>

/// The Swift runtime's `swift_tryRetain`, as its `include/swift/Runtime/HeapObject.h` declares it
/// (`HeapObject *swift_tryRetain(HeapObject *object)`, exported by every Swift runtime): retains a
/// native Swift object unless it has started deinitialising, and returns it, or null if it had. It
/// is what a weak load does through the object's side table, done in place on the object.
void *swift_tryRetain(void *object);

/// Retains the native Swift object at `object` unless it has started deinitialising.
static inline bool kvo_try_retain(void *object) {
    return swift_tryRetain(object) != 0;
}

#endif
