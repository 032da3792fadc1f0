#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Turns SIGTERM, SIGINT and SIGHUP into calls, so the daemon finishes its cycle instead of dying
/// mid-write.
public final class SignalHandlers: @unchecked Sendable {
    public enum Signal: Sendable, CaseIterable {
        case terminate, interrupt, hangup

        var number: Int32 {
            switch self {
            case .terminate: return SIGTERM
            case .interrupt: return SIGINT
            case .hangup: return SIGHUP
            }
        }
    }

    private var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; they run on a background queue until `cancel()`.
    public init(_ handler: @escaping @Sendable (Signal) -> Void) {
        let queue = DispatchQueue(label: "tophhie-watch.signals")
        for signal in Signal.allCases {
            // Ignore the default action so the dispatch source, not the kernel, handles it.
            _ = Glibc.signal(signal.number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal.number, queue: queue)
            source.setEventHandler { handler(signal) }
            source.resume()
            sources.append(source)
        }
    }

    /// Removes the handlers and restores the default actions.
    public func cancel() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for signal in Signal.allCases { _ = Glibc.signal(signal.number, SIG_DFL) }
    }
}

extension SignalHandlers {
    /// The process's SIGTERM, SIGINT and SIGHUP as a stream, for a `ServiceGroup`. The handlers
    /// are removed, and the default actions restored, when the stream's consumer goes away.
    public static func stream() -> AsyncStream<Signal> {
        let (stream, continuation) = AsyncStream<Signal>.makeStream()
        let handlers = SignalHandlers { signal in continuation.yield(signal) }
        continuation.onTermination = { _ in handlers.cancel() }
        return stream
    }
}
