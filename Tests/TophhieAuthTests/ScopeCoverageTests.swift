import Testing
@testable import TophhieAuth

/// Which granted scopes satisfy a call, from Graph's permission tables for GET /me and the sign-in list.
@Suite struct ScopeCoverageTests {
    @Test func aHigherPrivilegeGraphDocumentsForTheSameCallCoversIt() {
        #expect(TophhieScopes.covers(["Directory.Read.All"], TophhieScopes.auditLogRead))
        #expect(TophhieScopes.covers(["User.ReadWrite"], TophhieScopes.userRead))
        #expect(TophhieScopes.covers(["https://graph.microsoft.us/AuditLog.Read.All"], "auditlog.read.all"))
    }

    @Test func aLowerOrUnrelatedScopeDoesNot() {
        #expect(!TophhieScopes.covers(["AuditLog.Read.All"], TophhieScopes.directoryRead))
        #expect(!TophhieScopes.covers(["User.Read"], TophhieScopes.userReadWrite))
        #expect(!TophhieScopes.covers(["User.Read", "Mail.Read"], TophhieScopes.auditLogRead))
    }

    @Test func theDefaultSignInAsksForBothPermissionsMicrosoftDocumentsForTheSignInList() {
        #expect(TophhieScopes.defaultSignIn == ["User.Read", "AuditLog.Read.All", "Directory.Read.All"])
        #expect((try? TophhieScopes.resolve(["history"])) == ["AuditLog.Read.All", "Directory.Read.All"])
    }
}
