import Foundation
import TophhieSystem
@testable import TophhieCLI

/// Collects what a command writes.
final class CommandOutputRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""
    var out: String { lock.withLock { outText } }
    var err: String { lock.withLock { errText } }
    var io: CommandIO { io(environment: [:]) }

    func io(environment: [String: String], transport: any HTTPTransport = URLSessionTransport(), clock: any TophhieClock = SystemClock()) -> CommandIO {
        var io = CommandIO(out: { text in self.lock.withLock { self.outText += text } },
                           err: { text in self.lock.withLock { self.errText += text } },
                           environment: environment, transport: transport, clock: clock)
        // Not the machine's /etc/tophhie-watch/config.yml: a test reads only what it wrote.
        io.systemConfigFile = "/nonexistent/tophhie-watch/config.yml"
        return io
    }
}

