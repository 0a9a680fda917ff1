// The shims are inline functions in include/KVORuntimeShims.h; a C target needs one source file.
#include "KVORuntimeShims.h"
