// The shims are inline functions in include/KVORuntimeShims.h; this file defines their variables.
#include "KVORuntimeShims.h"

_Thread_local void *kvo_thread_context_slot = 0;
_Thread_local long kvo_library_read_depth = 0;
long kvo_trackers_running_count = 0;

// Out-of-line forms of two inline shims, for Swift code inlined into clients (the `@Observed` getters),
// which reaches them by symbol name (`@_silgen_name`) so that the library imports this module only
// internally: clients never see these declarations.
long kvo_trackers_running_now(void) {
    return kvo_trackers_running();
}

long kvo_is_reading_for_library_now(void) {
    return kvo_is_reading_for_library() ? 1 : 0;
}
