import Foundation
import Testing
import TophhieJSON
import TophhieSimulator
@testable import TophhieAuth

@Suite(.timeLimit(.minutes(20))) struct ProfileOverHTTPTests {
    @Test func getMeSendsTheSelectListAndDecodes() async throws {
        try await TenantHarness.with(TenantHarness.scenario(kind: .consumer)) { harness in
            try await harness.signIn()
            await harness.tenant.clearRequestLog()
            let profile = try await harness.auth().getUserProfile()
            #expect(profile.id == TenantHarness.userID)
            #expect(profile.city == "London")
            #expect(profile.preferredLanguage == "en-GB")
            #expect(profile.jobTitle == nil)
            let request = try #require(await harness.tenant.requests.first)
            let select = try #require(request.query["$select"]).split(separator: ",").map(String.init)
            for field in ["streetAddress", "city", "state", "postalCode", "country", "preferredLanguage"] { #expect(select.contains(field)) }
            #expect(request.header("User-Agent")?.hasPrefix("tophhie-watch/") == true)
            #expect(request.header("Authorization") == "[redacted]", "a bearer token was sent, and the log does not keep it")
        }
    }

    @Test func patchBodyFollowsTheNilEmptyValueRulesByteForByte() async throws {
        try await TenantHarness.with(TenantHarness.scenario(kind: .consumer)) { harness in
            try await harness.signIn()
            var update = TophhieProfileUpdate()
            update.givenName = "Janet"
            update.city = ""
            update.preferredLanguage = "fr-FR"
            let profile = try await harness.auth().updateProfile(update)
            let body = try #require(await harness.tenant.patchBodies.last)
            #expect(String(decoding: body, as: UTF8.self) == #"{"givenName":"Janet","city":null,"preferredLanguage":"fr-FR"}"#)
            #expect(profile.givenName == "Janet")
            #expect(profile.city == nil)
            #expect(profile.surname == "Doe", "untouched fields stay")
            #expect(profile.preferredLanguage == "fr-FR")
        }
    }

    @Test func noChangesSendsNoPatch() async throws {
        try await TenantHarness.with(TenantHarness.scenario(kind: .consumer)) { harness in
            try await harness.signIn()
            let update = TophhieProfileUpdate()
            #expect(!update.hasChanges)
            _ = try await harness.auth().updateProfile(update)
            #expect(await harness.tenant.patchBodies.isEmpty)
            #expect(await harness.tenant.requests.allSatisfy { $0.method != "PATCH" })
        }
    }

    @Test func invalidLanguageIsRefusedBeforeAnyRequest() async throws {
        try await TenantHarness.with(TenantHarness.scenario(kind: .consumer)) { harness in
            try await harness.signIn()
            await harness.tenant.clearRequestLog()
            var update = TophhieProfileUpdate()
            update.preferredLanguage = "english"
            await #expect(throws: TophhieAuthError.invalidLanguageTag("english")) { _ = try await harness.auth().updateProfile(update) }
            #expect(await harness.tenant.requests.isEmpty)
        }
    }

    @Test func memberAccountWithoutDirectoryAccessGetsThe403Explained() async throws {
        try await TenantHarness.with(TenantHarness.scenario(kind: .member)) { harness in
            try await harness.signIn()
            var update = TophhieProfileUpdate()
            update.city = "Leeds"
            do {
                _ = try await harness.auth().updateProfile(update)
                Issue.record("a member edited city without Directory.AccessAsUser.All")
            } catch let error as TophhieAuthError {
                #expect(error.withoutRequestIDs == .profileUpdate(status: 403, graphCode: "Authorization_RequestDenied"))
                #expect(error.accessGate == .directoryAccess)
                #expect(error.localizedDescription.contains("Directory.AccessAsUser.All"))
                #expect(error.localizedDescription.contains("admin consent"))
            }
        }
    }

    @Test func memberAccountWithDirectoryAccessCanEdit() async throws {
        try await TenantHarness.with(TenantHarness.scenario(kind: .member, consented: ["User.Read", "User.ReadWrite", "AuditLog.Read.All", "Directory.AccessAsUser.All"])) { harness in
            try await harness.signIn([TophhieScopes.userRead, TophhieScopes.userReadWrite, TophhieScopes.directoryAccessAsUser])
            var update = TophhieProfileUpdate()
            update.city = "Leeds"
            #expect(try await harness.auth().updateProfile(update).city == "Leeds")
        }
    }
}
