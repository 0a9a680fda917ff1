#ifndef LIB_FUZZER_DRIVER_H
#define LIB_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs that have a `main` of their own: parses libFuzzer's flags from
/// `argc`/`argv` and fuzzes `callback`, as libFuzzer's own `main` does. Defined by libFuzzer
/// (`-sanitize=fuzzer`); see https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
