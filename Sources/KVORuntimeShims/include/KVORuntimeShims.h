#ifndef KVO_RUNTIME_SHIMS_H
#define KVO_RUNTIME_SHIMS_H

#include <stdbool.h>

/// The Swift runtime's `swift_tryRetain`, as its `include/swift/Runtime/HeapObject.h` declares it
/// (`HeapObject *swift_tryRetain(HeapObject *object)`, exported by every Swift runtime): retains a
/// native Swift object unless it has started deinitialising, and returns it, or null if it had. It
/// is what a weak load does through the object's side table, done in place on the object.
void *swift_tryRetain(void *object);

/// The Swift runtime's unowned reference counting, as `HeapObject.h` declares it
/// (`HeapObject *swift_unownedRetain(HeapObject *)`, `void swift_unownedRelease(HeapObject *)`):
/// what an `unowned` reference does when made and dropped. While the unowned count is above zero,
/// the object's memory stays allocated (its deinit still runs when its last strong reference goes).
void *swift_unownedRetain(void *object);
void swift_unownedRelease(void *object);

/// The Swift runtime's `swift_isDeallocating`, as `HeapObject.h` declares it
/// (`bool swift_isDeallocating(HeapObject *object)`): whether a native Swift object has started
/// deinitialising. A load of its reference counts; no retain.
bool swift_isDeallocating(void *object);

/// Whether the native Swift object at `object` has started deinitialising.
static inline bool kvo_is_deinitialising(void *object) {
    return swift_isDeallocating(object);
}

/// Keeps the memory of the native Swift object at `object` allocated, until `kvo_unpin`.
static inline void kvo_pin(void *object) {
    swift_unownedRetain(object);
}

/// Ends a `kvo_pin`.
static inline void kvo_unpin(void *object) {
    swift_unownedRelease(object);
}

/// Retains the native Swift object at `object` unless it has started deinitialising.
static inline bool kvo_try_retain(void *object) {
    return swift_tryRetain(object) != 0;
}

/// The Swift runtime's `swift_getMetadataKind`, as its `include/swift/Runtime/Metadata.h` declares it
/// (`MetadataKind swift_getMetadataKind(const Metadata *type)`, a 32-bit enumeration): what kind of type a
/// type's metadata describes.
unsigned int swift_getMetadataKind(const void *type);

/// Whether the type whose metadata is at `type` is an existential: a protocol, a composition, `Any`,
/// `AnyObject` (`MetadataKind::Existential`, 0x303), or a constrained one such as `any Collection<Int>`
/// (`MetadataKind::ExtendedExistential`, 0x307), as `include/swift/ABI/MetadataKind.def` numbers them.
static inline bool kvo_is_existential(const void *type) {
    unsigned int kind = swift_getMetadataKind(type);
    return kind == 0x303 || kind == 0x307;
}

/// The thread-local variables' model with glibc: initial-exec, read with one load relative to the thread
/// pointer. The default for position-independent code (general-dynamic) is a call to `__tls_get_addr`,
/// which the linker relaxes to a load when it links an executable, but the registers the compiler saved
/// around the call stay saved: every hot function that asks its thread's context paid for them. (A library
/// that is dlopen'ed takes its 16 bytes from the static TLS that glibc keeps spare for such libraries. musl
/// and Android's loader refuse initial-exec variables in a dlopen'ed library: there, and elsewhere, the
/// default model.)
#if defined(__linux__)
#include <limits.h>
#endif
#if defined(__GLIBC__) && !defined(__ANDROID__)
#define KVO_INITIAL_EXEC_TLS 1
#define KVO_THREAD_LOCAL _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define KVO_INITIAL_EXEC_TLS 0
#define KVO_THREAD_LOCAL _Thread_local
#endif

/// This thread's `ThreadContext` (null until made): a thread-local variable, read with a load where
/// `pthread_getspecific` is a call (the key, which releases the context when the thread ends, is
/// still set beside it).
extern KVO_THREAD_LOCAL void *kvo_thread_context_slot;

static inline void *kvo_thread_context(void) {
    return kvo_thread_context_slot;
}

static inline void kvo_set_thread_context(void *context) {
    kvo_thread_context_slot = context;
}

/// How many of KVOMediator's own reads (an `.initial` value, an old value: `untracked`) this thread is
/// in. A thread-local C variable, as the context's slot is; a getter of a class bridged to Observation,
/// inlined into the client's code, asks it through `_isReadingForLibrary()` (SwiftRuntime.swift), which
/// is not inlined.
extern KVO_THREAD_LOCAL long kvo_library_read_depth;

static inline bool kvo_is_reading_for_library(void) {
    return kvo_library_read_depth != 0;
}

/// Adds `delta` (1 or -1) to this thread's depth of the library's own reads.
static inline void kvo_library_reads_add(long delta) {
    kvo_library_read_depth += delta;
}

/// How many of KVOMediator's access trackers are installed: a hint for getters, which report a read only
/// while it is not zero (the thread's own tracker then decides). Getters inlined into clients read it
/// through a Swift function that is not inlined (`_trackersRunning()`, SwiftRuntime.swift).
///
/// With glibc, the trackers of this thread: a thread-local variable, read with one load, and changed with
/// no atomic operation (each evaluation made two on one word that every thread's evaluations share).
/// Elsewhere, where a thread-local variable may cost a call to read, the trackers of every thread: a C
/// variable, not a Swift global, so that it is changed and read atomically (a relaxed load is what
/// ThreadSanitizer accepts beside the atomic adds).
#if KVO_INITIAL_EXEC_TLS
extern KVO_THREAD_LOCAL long kvo_thread_trackers_running;

static inline long kvo_trackers_running(void) {
    return kvo_thread_trackers_running;
}

/// Adds `delta` (1 or -1) to the number of trackers installed.
static inline void kvo_trackers_add(long delta) {
    kvo_thread_trackers_running += delta;
}
#else
extern long kvo_trackers_running_count;

static inline long kvo_trackers_running(void) {
    return __atomic_load_n(&kvo_trackers_running_count, __ATOMIC_RELAXED);
}

/// Adds `delta` (1 or -1) to the number of trackers installed.
static inline void kvo_trackers_add(long delta) {
    __atomic_fetch_add(&kvo_trackers_running_count, delta, __ATOMIC_RELAXED);
}
#endif

/// Gate passes (see `GatePasses`, in GatePasses.swift): the address of the one registration whose gate
/// a thread is in through its registrar's lock (0: none), in place of the gate's count, whose atomic
/// enter and leave a notification then does not make. Each thread's word is one of `kvo_pass_words`,
/// which are never freed, so that another thread may read any of them at any time; a thread with none
/// (passes off, or every word taken) points at `kvo_pass_off`, which holds 1 and so always reads as
/// taken. With glibc on Linux only: elsewhere `kvo_passes_enable` says no and nothing takes a pass.
#include <stdint.h>
#define KVO_PASS_WORDS 1024

extern uintptr_t kvo_pass_off;
extern KVO_THREAD_LOCAL uintptr_t *kvo_thread_pass;

/// Takes this thread's pass into the gate of `registration`, unless it already holds one (or has none).
/// The caller then reads the gate: what it wrote is ordered before that read by the process-wide
/// barrier of whoever cancels (`kvo_process_barrier`), so that either the canceller sees the pass or
/// this thread sees the cancellation.
static inline bool kvo_pass_take(uintptr_t registration) {
    uintptr_t *word = kvo_thread_pass;
    if (__atomic_load_n(word, __ATOMIC_RELAXED) != 0) return false;
    __atomic_store_n(word, registration, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return true;
}

/// Starts giving this thread's pass into the gate of `registration` back: its word holds the address with
/// the low bit set (a registration is aligned) while the thread, still in, reads the gate (ordered as for
/// `kvo_pass_take`). Whoever would release the registration waits for such a word to change.
static inline void kvo_pass_leaving(uintptr_t registration) {
    __atomic_store_n(kvo_thread_pass, registration | 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/// Gives this thread's pass back: after it, the thread no longer touches the registration.
static inline void kvo_pass_give_back(void) {
    __atomic_store_n(kvo_thread_pass, 0, __ATOMIC_RELEASE);
}

/// Turns passes on for the process if the kernel has the barrier they need; false if not.
bool kvo_passes_enable(void);
/// Gives this thread a word of its own (false if none is free).
bool kvo_pass_claim_word(void);
/// Frees this thread's word (it ends).
void kvo_pass_free_word(void);
/// Which threads hold a pass into the gate of `registration`: bit 1, this one; bit 2, another; bit 4,
/// another that is giving it back (`kvo_pass_leaving`).
int kvo_pass_holders(uintptr_t registration);
/// A full memory barrier on every thread of the process (Linux's `membarrier`): after it, each thread's
/// earlier writes are seen by this one, and this one's by each thread's later reads.
void kvo_process_barrier(void);

#if defined(__linux__)
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Sleeps while the 32-bit word at `word` holds `expected` (or until woken; it may wake spuriously).
static inline void kvo_futex_wait(uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, (void *)0, (void *)0, 0);
}

/// Wakes one thread sleeping on the word at `word`.
static inline void kvo_futex_wake_one(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}
#endif

#endif
