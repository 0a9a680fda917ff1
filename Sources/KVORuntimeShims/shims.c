// The shims are inline functions in include/KVORuntimeShims.h; this file defines their variables.
#include "KVORuntimeShims.h"

KVO_THREAD_LOCAL void *kvo_thread_context_slot = 0;
KVO_THREAD_LOCAL long kvo_library_read_depth = 0;
#if KVO_INITIAL_EXEC_TLS
KVO_THREAD_LOCAL long kvo_thread_trackers_running = 0;
#else
long kvo_trackers_running_count = 0;
#endif
