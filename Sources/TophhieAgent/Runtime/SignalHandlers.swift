import Dispatch
import Foundation

/// Turns SIGTERM, SIGINT and SIGHUP into calls, so the daemon finishes its cycle instead of dying
/// mid-write.
public final class SignalHandlers: @unchecked Sendable {
    public enum Signal: Sendable { case terminate, interrupt, hangup }

    private var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; they run on a background queue until `cancel()`.
    public init(_ handler: @escaping @Sendable (Signal) -> Void) {
        let queue = DispatchQueue(label: "tophhie-watch.signals")
        for (platform, signal) in [(Platform.Signal.terminate, Signal.terminate), (.interrupt, .interrupt), (.hangup, .hangup)] {
            Platform.takeOver(platform)
            let source = DispatchSource.makeSignalSource(signal: platform.number, queue: queue)
            source.setEventHandler { handler(signal) }
            source.resume()
            sources.append(source)
        }
    }

    /// Removes the handlers and restores the default actions.
    public func cancel() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for signal in Platform.Signal.allCases { Platform.restoreDefault(signal) }
    }
}
