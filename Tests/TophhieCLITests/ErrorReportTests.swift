import Foundation
import Testing
import TophhieSystem
import TophhieAuth
import TophhieAgent
@testable import TophhieCLI

/// The exit code a script tests for each class of failure.
@Suite struct ErrorReportTests {
    @Test func aGraph401AfterTheRefreshIsSignInNeeded() {
        let (text, code) = ErrorReport.describe(TophhieAuthError.signInHistory(status: 401, graphCode: "InvalidAuthenticationToken"))
        #expect(code == .signInNeeded)
        #expect(text.contains("run 'tophhie-watch login'"), "\(text)")
        #expect(ErrorReport.describe(TophhieAuthError.profileFetch(status: 401, graphCode: nil)).1 == .signInNeeded)
    }

    /// A state directory that cannot be written is exit 2, as the README's table says.
    @Test func anUnwritableStateDirectoryIsExitTwo() {
        let fault = StateUnwritable(fault: FileError(operation: "create", path: "/var/lib/tophhie-watch/.state.json.tmp-1", code: FileError.readOnly), stateDirectory: "/var/lib/tophhie-watch", directoryGone: false)
        let (text, code) = ErrorReport.describe(fault)
        #expect(code == .usage)
        #expect(text.hasPrefix("cannot write the state directory /var/lib/tophhie-watch (cannot create /var/lib/tophhie-watch/.state.json.tmp-1: Read-only file system)"))
    }

    @Test func otherGraphFailuresKeepTheirCodes() {
        #expect(ErrorReport.describe(TophhieAuthError.signInHistory(status: 503, graphCode: nil)).1 == .failure)
        #expect(ErrorReport.describe(TophhieAuthError.interactionRequired(reason: "nobody is signed in")).1 == .signInNeeded)
    }

    /// A cycle over several accounts exits with the most serious of their codes (issue 49).
    @Test func severalAccountsExitWithTheMostSeriousCode() {
        #expect(ExitCode.mostSerious([]) == .ok)
        #expect(ExitCode.mostSerious([.ok, .ok]) == .ok)
        #expect(ExitCode.mostSerious([.ok, .failure, .ok]) == .failure)
        #expect(ExitCode.mostSerious([.failure, .accessDenied, .ok]) == .accessDenied)
        #expect(ExitCode.mostSerious([.accessDenied, .signInNeeded, .failure]) == .signInNeeded)
        #expect(ExitCode.mostSerious([.signInNeeded, .usage, .ok]) == .usage)
    }
}
