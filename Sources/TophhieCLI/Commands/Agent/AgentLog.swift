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

    /// Every account's state-directory lock, or nil (and a log line) when another agent holds
    /// one of them; those taken are let go again.
    /// - Throws: `ConfigurationError` when a state directory cannot be made.
    static func lock(_ accounts: [AgentConfiguration], log: (String) -> Void) throws -> [StateDirectoryLock]? {
        var locks: [StateDirectoryLock] = []
        for account in accounts {
            do {
                guard let lock = try self.lock(account, log: { log(WatchedAccounts.logLine($0, account: account.account)) }) else {
                    for taken in locks { taken.release() }
                    return nil
                }
                locks.append(lock)
            } catch {
                for taken in locks { taken.release() }
                throw error
            }
        }
        return locks
    }

    /// Rule warnings worth an operator's eye (a field Graph v1.0 lacks never matches).
    static func warnings(_ setup: AgentSetup, log: (String) -> Void) {
        for warning in setup.configurationWarnings { log(warning) }
        for note in setup.ruleNotes where note.severity == .warning { log("\(note)") }
        for note in setup.dispatch.recoveryNotes { log("outbox repaired: \(note)") }
    }

    /// The warnings of every account: the configuration's and the rules' once, each outbox's
    /// repairs under its account's name.
    static func warnings(_ accounts: WatchedAccounts, log: (String) -> Void) {
        for warning in accounts.setups[0].configurationWarnings { log(warning) }
        for note in accounts.rules.diagnostics where note.severity == .warning { log("\(note)") }
        for setup in accounts.setups {
            for note in setup.dispatch.recoveryNotes { log(WatchedAccounts.logLine("outbox repaired: \(note)", account: setup.configuration.account)) }
        }
    }
}
