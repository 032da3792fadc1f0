import Foundation
import TophhieAgent
import TophhieJSON

/// The agent's log lines on standard error: a UTC time, then the message.
enum AgentLog {
    static func writer(_ io: CommandIO) -> @Sendable (String) -> Void {
        { message in io.err("\(GraphTimestamp.alertText(Date())) tophhie-watch: \(message)\n") }
    }

    /// The state-directory lock, or nil (and a log line) when another agent holds it: a second
    /// cron poll is not an error.
    /// - Throws: `ConfigurationError` when the state directory cannot be made.
    static func lock(_ configuration: AgentConfiguration, log: (String) -> Void) throws -> StateDirectoryLock? {
        do { return try StateDirectoryLock.acquire(stateDirectory: configuration.stateDirectory) } catch let held as StateDirectoryLock.Held {
            log(held.description)
            return nil
        }
    }

    /// Rule warnings worth an operator's eye (a field Graph v1.0 lacks never matches).
    static func warnings(_ setup: AgentSetup, log: (String) -> Void) {
        for warning in setup.configurationWarnings { log(warning) }
        for note in setup.ruleNotes where note.severity == .warning { log("\(note)") }
        for note in setup.dispatch.recoveryNotes { log("outbox repaired: \(note)") }
    }
}
