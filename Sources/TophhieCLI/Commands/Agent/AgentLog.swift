import Foundation
import TophhieJSON

/// The agent's log lines on standard error: a UTC time, then the message.
enum AgentLog {
    static func writer(_ io: CommandIO) -> @Sendable (String) -> Void {
        { message in io.err("\(GraphTimestamp.alertText(Date())) tophhie-watch: \(message)\n") }
    }
}
