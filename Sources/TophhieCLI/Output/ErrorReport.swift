import Foundation
import TophhieAuth
import TophhieAgent

/// Turns an error from any layer into the message a person reads and the exit code a script tests.
enum ErrorReport {
    static func describe(_ error: any Error) -> (String, ExitCode) {
        if let usage = error as? UsageError { return (usage.message, .usage) }
        if let configuration = error as? ConfigurationError { return (configuration.description, .usage) }
        // Nothing can be done until someone frees space or fixes the directory: as a configuration error.
        if let unwritable = error as? StateUnwritable { return (unwritable.description, .usage) }
        if let auth = error as? TophhieAuthError {
            let text = auth.errorDescription ?? "\(auth)"
            if auth.needsSignIn { return (text, .signInNeeded) }
            switch auth {
            case .configuration, .invalidLanguageTag: return (text, .usage)
            default: return (text, auth.accessGate == nil ? .failure : .accessDenied)
            }
        }
        if let located = error as? any LocalizedError, let text = located.errorDescription { return (text, .failure) }
        return (String(describing: error), .failure)
    }
}
