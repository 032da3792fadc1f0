/// The process exit codes, documented in the README.
public enum ExitCode: Int32, Sendable {
    /// The command did what was asked.
    case ok = 0
    /// A runtime failure: network, Graph, a receiver, a rule that fired in `rules test` wrongly.
    case failure = 1
    /// The command line or the configuration is wrong; nothing was done.
    case usage = 2
    /// No usable sign-in: run `tophhie-watch login`.
    case signInNeeded = 3
    /// Graph refused access (licence, role or consent); `doctor` says which.
    case accessDenied = 4

    /// The code of a run over several accounts: the most serious of theirs, in the order 2
    /// (nothing could be done), 3 (someone must sign in), 4 (access denied), 1, 0.
    static func mostSerious(_ codes: [ExitCode]) -> ExitCode {
        let order: [ExitCode] = [.usage, .signInNeeded, .accessDenied, .failure, .ok]
        return order.first(where: codes.contains) ?? .ok
    }
}

/// A problem with what the user typed or configured; printed with a pointer to `--help`.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
