import Foundation
import TophhieAgent
import TophhieJSON

/// The agent's log lines on standard error: a UTC time, then the message.
enum AgentLog {
    static func writer(_ io: CommandIO) -> @Sendable (String) -> Void {
        { message in io.err("\(GraphTimestamp.alertText(Date())) tophhie-watch: \(message)\n") }
    }

    /// Every account's state-directory lock, or nil (and a log line) when another agent holds
    /// one of them (a second cron poll is not an error); those taken are let go again.
    /// - Throws: `ConfigurationError` when a state directory cannot be made.
    static func lock(_ accounts: [AgentConfiguration], log: (String) -> Void) throws -> [StateDirectoryLock]? {
        var locks: [StateDirectoryLock] = []
        for account in accounts {
            do {
                locks.append(try StateDirectoryLock.acquire(stateDirectory: account.stateDirectory))
            } catch {
                for taken in locks { taken.release() }
                guard let held = error as? StateDirectoryLock.Held else { throw error }
                log(WatchedAccounts.logLine(held.description, account: account.account))
                return nil
            }
        }
        return locks
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
