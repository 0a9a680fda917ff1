// The shims are inline functions in include/KVORuntimeShims.h; this file defines the one variable.
#include "KVORuntimeShims.h"

_Thread_local void *kvo_thread_context_slot = 0;
