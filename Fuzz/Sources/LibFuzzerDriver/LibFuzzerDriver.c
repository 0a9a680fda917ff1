// Declarations only (see include/LibFuzzerDriver.h): libFuzzer defines them. SwiftPM needs a source file.
#include "LibFuzzerDriver.h"
