/// The buffer between a registration (producing on the mutating thread) and one consuming task.
///
/// It holds the registration; the registration's handler holds it weakly. So the registration ends
/// when the sequence and its iterator are both gone, when the consuming task is cancelled, or when
/// the observed object deinitialises (which finishes the stream).
///
/// Usable from inlinable code: a stream's public entry points build its handler and its iterator in
/// the caller's module, so that a change and a `next()` run specialised code. Unspecialised, each of
/// them looked up the metadata of `Optional<Element>`, `[Element]`, the continuation and the record
/// about 25 times, some 11,000 instructions, more than the rest of a set-then-await.
///
/// Its state is one `GuardedFields` value, guarded by `lock`: a class's own stored properties are checked
/// for exclusive access at run time on each access, two calls into the runtime per field touched.
@usableFromInline
final class StreamSource<Element: Sendable>: GuardedFields<StreamSource.State>, @unchecked Sendable {
    /// What the stream holds, guarded by `lock`.
    @usableFromInline
    struct State {
        @usableFromInline var buffer: [Element] = []
        @usableFromInline var head = 0
        /// Elements that arrived while the initial value was still being read; they follow it.
        @usableFromInline var early: [Element] = []
        @usableFromInline var started = false
        @usableFromInline var finished = false
        /// The consuming task, waiting in `next()` for an element (or the end).
        @usableFromInline var waiter: UnsafeContinuation<Element?, Never>?
        @usableFromInline var info: KVOInfo?
        /// What else the stream keeps while it lives (an observation of elements: its token).
        @usableFromInline var companion: AnyObject?

        @usableFromInline
        init() {}
    }

    @usableFromInline let lock = Lock()
    @usableFromInline let policy: KVOBufferingPolicy

    @usableFromInline
    init(policy: KVOBufferingPolicy) {
        self.policy = policy
        super.init(guarded: State())
    }

    deinit {
        guarded.info.map(KVODispatcher.shared.end)
    }

    /// Attaches the registration (before it starts, so that it can be ended from here).
    @usableFromInline
    func attach(_ info: KVOInfo) {
        lock.withLock { guarded.info = info }
    }

    /// Keeps `companion` while the stream lives (before it starts).
    @usableFromInline
    func keep(_ companion: AnyObject) {
        lock.withLock { guarded.companion = companion }
    }

    /// Starts delivery: the initial element (if any) first, then what arrived meanwhile.
    @inlinable
    func start(initial: Element?) {
        lock.lock()
        guarded.started = true
        if let initial { enqueue(initial) }
        if !guarded.early.isEmpty {
            for element in guarded.early { enqueue(element) }
            guarded.early = []
        }
        resumeWaiterAndUnlock()
    }

    @inlinable
    func yield(_ element: Element) {
        lock.lock()
        guard !guarded.finished else { return lock.unlock() }
        guard guarded.started else {
            guarded.early.append(element)
            return lock.unlock()
        }
        // The usual case, a consumer already waiting for this element: hand it over, unbuffered.
        if let waiter = guarded.waiter, guarded.head == guarded.buffer.count {
            guarded.waiter = nil
            lock.unlock()
            return waiter.resume(returning: element)
        }
        enqueue(element)
        resumeWaiterAndUnlock()
    }

    /// Ends the stream after what is buffered; the registration is ended too.
    @usableFromInline
    func finish() {
        lock.lock()
        guarded.finished = true
        let info = guarded.info
        let companion = guarded.companion
        guarded.companion = nil
        var waiter: UnsafeContinuation<Element?, Never>?
        if guarded.head == guarded.buffer.count {
            waiter = guarded.waiter
            guarded.waiter = nil
        }
        lock.unlock()
        info.map(KVODispatcher.shared.end)
        withExtendedLifetime(companion) {}
        waiter?.resume(returning: nil)
    }

    @inlinable
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                lock.lock()
                if guarded.head < guarded.buffer.count {
                    let element = dequeue()
                    lock.unlock()
                    return continuation.resume(returning: element)
                }
                if guarded.finished {
                    lock.unlock()
                    return continuation.resume(returning: nil)
                }
                // As `AsyncStream`'s: one consumer at a time (a second waiter would never be resumed).
                precondition(
                    guarded.waiter == nil,
                    "KVOMediator: next() was called on a KVOAsyncSequence from two tasks at once; a sequence is "
                        + "single-pass, iterated by one task. Make one sequence per consuming task."
                )
                guarded.waiter = continuation
                lock.unlock()
            }
        } onCancel: {
            finish()
        }
    }

    /// Must be called with `lock` held.
    @inlinable
    func enqueue(_ element: Element) {
        switch policy {
        case .unbounded:
            guarded.buffer.append(element)
        case .latest:
            guarded.buffer.removeAll(keepingCapacity: true)
            guarded.head = 0
            guarded.buffer.append(element)
        }
    }

    /// Must be called with `lock` held.
    @inlinable
    func dequeue() -> Element {
        let element = guarded.buffer[guarded.head]
        guarded.head += 1
        if guarded.head == guarded.buffer.count {
            guarded.buffer.removeAll(keepingCapacity: true)
            guarded.head = 0
        } else if guarded.head >= 64 && guarded.head * 2 >= guarded.buffer.count {
            guarded.buffer.removeSubrange(0..<guarded.head)
            guarded.head = 0
        }
        return element
    }

    /// Gives a waiting consumer the next element, if there is one; must be called with `lock` held,
    /// which it releases (the consumer is resumed after that).
    @inlinable
    func resumeWaiterAndUnlock() {
        guard let waiter = guarded.waiter, guarded.head < guarded.buffer.count else { return lock.unlock() }
        guarded.waiter = nil
        let element = dequeue()
        lock.unlock()
        waiter.resume(returning: element)
    }
}

/// Ends the stream when the last copy of an iterator goes away.
@usableFromInline
final class IteratorLifetime<Element: Sendable>: Sendable {
    @usableFromInline
    let source: StreamSource<Element>

    @usableFromInline
    init(source: StreamSource<Element>) {
        self.source = source
    }

    deinit {
        source.finish()
    }
}
