import Foundation

/// Turns an error from any layer into the message a person reads and the exit code a script tests.
enum ErrorReport {
    static func describe(_ error: any Error) -> (String, ExitCode) {
        if let usage = error as? UsageError { return (usage.message, .usage) }
        if let located = error as? any LocalizedError, let text = located.errorDescription { return (text, .failure) }
        return (String(describing: error), .failure)
    }
}
