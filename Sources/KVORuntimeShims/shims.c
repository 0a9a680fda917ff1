// The shims are inline functions in include/KVORuntimeShims.h; this file defines their variables, and the
// gate passes' functions that are not on a notification's path.
#include "KVORuntimeShims.h"

KVO_THREAD_LOCAL void *kvo_thread_context_slot = 0;
KVO_THREAD_LOCAL long kvo_library_read_depth = 0;
#if KVO_INITIAL_EXEC_TLS
KVO_THREAD_LOCAL long kvo_thread_trackers_running = 0;
#else
long kvo_trackers_running_count = 0;
#endif

uintptr_t kvo_pass_off = 1;
KVO_THREAD_LOCAL uintptr_t *kvo_thread_pass = &kvo_pass_off;

#if defined(__linux__) && KVO_INITIAL_EXEC_TLS
#include <linux/membarrier.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/// A thread's pass word, alone in its cache lines: each notification through a pass writes its thread's
/// word twice, and words of two threads in one line made threads notifying at once slow each other
/// (every write took the line from the other core). 128 bytes: a line and the one prefetched beside it.
typedef struct {
    _Alignas(128) uintptr_t word;
} kvo_pass_slot;

static kvo_pass_slot kvo_pass_words[KVO_PASS_WORDS];
static unsigned char kvo_pass_word_taken[KVO_PASS_WORDS];
/// How many words have ever been taken (the words past it are 0).
static long kvo_pass_words_used = 0;

bool kvo_passes_enable(void) {
    long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (commands < 0 || (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

bool kvo_pass_claim_word(void) {
    if (kvo_thread_pass != &kvo_pass_off) return true;
    for (long index = 0; index < KVO_PASS_WORDS; index++) {
        // (Read first: a compare-and-exchange that fails on a taken word is still an atomic write.)
        if (__atomic_load_n(&kvo_pass_word_taken[index], __ATOMIC_RELAXED) != 0) continue;
        unsigned char expected = 0;
        if (!__atomic_compare_exchange_n(&kvo_pass_word_taken[index], &expected, 1, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED))
            continue;
        long used = __atomic_load_n(&kvo_pass_words_used, __ATOMIC_RELAXED);
        while (used <= index && !__atomic_compare_exchange_n(&kvo_pass_words_used, &used, index + 1, false,
                                                             __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        }
        kvo_thread_pass = &kvo_pass_words[index].word;
        return true;
    }
    return false;
}

void kvo_pass_free_word(void) {
    uintptr_t *word = kvo_thread_pass;
    if (word == &kvo_pass_off) return;
    kvo_thread_pass = &kvo_pass_off;
    __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    // (The word is its slot's first member: the slot is at the same address.)
    __atomic_store_n(&kvo_pass_word_taken[(kvo_pass_slot *)word - kvo_pass_words], 0, __ATOMIC_RELEASE);
}

int kvo_pass_holders(uintptr_t registration) {
    uintptr_t *own = kvo_thread_pass;
    long used = __atomic_load_n(&kvo_pass_words_used, __ATOMIC_ACQUIRE);
    int holders = 0;
    for (long index = 0; index < used; index++) {
        uintptr_t word = __atomic_load_n(&kvo_pass_words[index].word, __ATOMIC_ACQUIRE);
        if (word == registration) {
            holders |= &kvo_pass_words[index].word == own ? 1 : 2;
        } else if (word == (registration | 1)) {
            holders |= &kvo_pass_words[index].word == own ? 1 : 4;
        }
    }
    return holders;
}

void kvo_process_barrier(void) {
    // Cannot fail once registered (`kvo_passes_enable`), which is the only way a pass is ever taken.
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) abort();
}
#else
bool kvo_passes_enable(void) { return false; }
bool kvo_pass_claim_word(void) { return false; }
void kvo_pass_free_word(void) {}
int kvo_pass_holders(uintptr_t registration) { (void)registration; return 0; }
void kvo_process_barrier(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif
