/// The buffer between a registration (producing on the mutating thread) and one consuming task.
///
/// It holds the registration; the registration's handler holds it weakly. So the registration ends
/// when the sequence and its iterator are both gone, when the consuming task is cancelled, or when
/// the observed object deinitialises (which finishes the stream).
final class StreamSource<Element: Sendable>: @unchecked Sendable {  // all state is guarded by `lock`
    private let lock = Lock()
    private let policy: KVOBufferingPolicy
    private var buffer: [Element] = []
    private var head = 0
    /// Elements that arrived while the initial value was still being read; they follow it.
    private var early: [Element] = []
    private var started = false
    private var finished = false
    private var waiter: CheckedContinuation<Element?, Never>?
    private var info: KVOInfo?

    init(policy: KVOBufferingPolicy) {
        self.policy = policy
    }

    deinit {
        info.map(KVODispatcher.shared.end)
    }

    /// Attaches the registration (before it starts, so that it can be ended from here).
    func attach(_ info: KVOInfo) {
        lock.withLock { self.info = info }
    }

    /// Starts delivery: the initial element (if any) first, then what arrived meanwhile.
    func start(initial: Element?) {
        let resumed: (CheckedContinuation<Element?, Never>, Element)? = lock.withLock {
            started = true
            if let initial { enqueue(initial) }
            for element in early { enqueue(element) }
            early = []
            return takeWaiterWithElement()
        }
        if let (waiter, element) = resumed { waiter.resume(returning: element) }
    }

    func yield(_ element: Element) {
        let resumed: (CheckedContinuation<Element?, Never>, Element)? = lock.withLock {
            guard !finished else { return nil }
            guard started else {
                early.append(element)
                return nil
            }
            enqueue(element)
            return takeWaiterWithElement()
        }
        if let (waiter, element) = resumed { waiter.resume(returning: element) }
    }

    /// Ends the stream after what is buffered; the registration is ended too.
    func finish() {
        let (waiter, info): (CheckedContinuation<Element?, Never>?, KVOInfo?) = lock.withLock {
            finished = true
            guard head == buffer.count else { return (nil, self.info) }
            let waiter = self.waiter
            self.waiter = nil
            return (waiter, self.info)
        }
        info.map(KVODispatcher.shared.end)
        waiter?.resume(returning: nil)
    }

    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let result: Element?? = lock.withLock {
                    if head < buffer.count { return .some(dequeue()) }
                    if finished { return .some(nil) }
                    waiter = continuation
                    return nil
                }
                if let result { continuation.resume(returning: result) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Must be called with `lock` held.
    private func enqueue(_ element: Element) {
        switch policy {
        case .unbounded:
            buffer.append(element)
        case .latest:
            buffer.removeSubrange(head...)
            head = 0
            buffer.removeAll(keepingCapacity: true)
            buffer.append(element)
        }
    }

    /// Must be called with `lock` held.
    private func dequeue() -> Element {
        let element = buffer[head]
        head += 1
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= buffer.count {
            buffer.removeSubrange(0..<head)
            head = 0
        }
        return element
    }

    /// Must be called with `lock` held.
    private func takeWaiterWithElement() -> (CheckedContinuation<Element?, Never>, Element)? {
        guard let waiter, head < buffer.count else { return nil }
        self.waiter = nil
        return (waiter, dequeue())
    }
}

/// Ends the stream when the last copy of an iterator goes away.
final class IteratorLifetime<Element: Sendable>: Sendable {
    let source: StreamSource<Element>

    init(source: StreamSource<Element>) {
        self.source = source
    }

    deinit {
        source.finish()
    }
}
