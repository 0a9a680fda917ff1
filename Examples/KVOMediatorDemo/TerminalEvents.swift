import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the interactive dashboard reacts to.
enum TerminalEvent: Sendable {
    case key(Key)
    /// The window changed size (SIGWINCH).
    case resized
    /// Time to draw the next frame.
    case frame
    /// SIGINT (Ctrl-C), SIGTERM or SIGHUP: clean up and end.
    case signal(Int32)
    /// Standard input closed.
    case inputClosed
}

/// Standard input, the window-size and termination signals, and a frame clock, as one stream of events.
///
/// Every source runs on the main queue. The termination signals are ignored by the process while the
/// stream runs (so that they reach the stream instead of killing the process with the terminal raw)
/// and set back to their defaults by `stop()`.
@MainActor
final class TerminalEvents {
    static let handledSignals = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

    let stream: AsyncStream<TerminalEvent>
    private let continuation: AsyncStream<TerminalEvent>.Continuation
    private var sources: [any DispatchSourceProtocol] = []

    /// Starts the sources; a frame event comes every `frameInterval` seconds.
    init(frameInterval: Double) {
        (stream, continuation) = AsyncStream.makeStream(of: TerminalEvent.self)
        let continuation = continuation

        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count > 0 {
                for key in KeyDecoder.keys(in: Array(buffer[..<count])) { continuation.yield(.key(key)) }
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                continuation.yield(.inputClosed)
            }
        }
        sources.append(input)

        for number in Self.handledSignals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { continuation.yield(number == SIGWINCH ? .resized : .signal(number)) }
            sources.append(source)
        }

        let clock = DispatchSource.makeTimerSource(queue: .main)
        clock.schedule(deadline: .now(), repeating: frameInterval)
        clock.setEventHandler { continuation.yield(.frame) }
        sources.append(clock)

        for source in sources { source.resume() }
    }

    /// Cancels the sources, ends the stream and gives the signals back their default actions.
    func stop() {
        for source in sources { source.cancel() }
        sources = []
        continuation.finish()
        for number in Self.handledSignals { signal(number, SIG_DFL) }
    }
}
