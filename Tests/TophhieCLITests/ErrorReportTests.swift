import Foundation
import Testing
import TophhieAuth
@testable import TophhieCLI

/// The exit code a script tests for each class of failure.
@Suite struct ErrorReportTests {
    @Test func aGraph401AfterTheRefreshIsSignInNeeded() {
        let (text, code) = ErrorReport.describe(TophhieAuthError.signInHistory(status: 401, graphCode: "InvalidAuthenticationToken"))
        #expect(code == .signInNeeded)
        #expect(text.contains("run 'tophhie-watch login'"), "\(text)")
        #expect(ErrorReport.describe(TophhieAuthError.profileFetch(status: 401, graphCode: nil)).1 == .signInNeeded)
    }

    @Test func otherGraphFailuresKeepTheirCodes() {
        #expect(ErrorReport.describe(TophhieAuthError.signInHistory(status: 503, graphCode: nil)).1 == .failure)
        #expect(ErrorReport.describe(TophhieAuthError.interactionRequired(reason: "nobody is signed in")).1 == .signInNeeded)
    }
}
