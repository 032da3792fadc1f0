import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// SigmaHQ's 18 Azure sign-in rules, verbatim in ../shared/sigma, against Graph-shaped events.
@Suite(.timeLimit(.minutes(20))) struct SigmaHQRulesTests {
    static let set: RuleSet = {
        let sources = (try? RuleSource.read(paths: [RepoPaths.sigma])) ?? []
        return RuleLoader.load(sources)
    }()

    /// The three SigmaHQ rules that cannot match Graph data, each for the reason the README
    /// gives: the rest fire on Graph beta's events.
    static let cannotFire = ["azure_app_device_code_authentication.yml", "azure_app_ropc_authentication.yml", "azure_legacy_authentication_protocols.yml"]

    @Test func againstBetaOnlyTheRulesThatCannotMatchGraphDataWarn() throws {
        let warned = Set(SigmaHQRulesTests.set.diagnostics.filter { $0.severity == .warning }.map { ($0.file as NSString).lastPathComponent })
        #expect(warned == Set(Self.cannotFire))
    }

    @Test func all18LoadWithWarningsForBetaOnlyFieldsAndNoErrors() throws {
        let sources = try RuleSource.read(paths: [RepoPaths.sigma])
        #expect(sources.count == 18)
        let set = RuleLoader.load(sources, schema: .v1)
        #expect(set.detections.count == 18)
        #expect(!set.hasErrors, "\(set.diagnostics.filter { $0.severity == .error })")
        let warned = Set(set.diagnostics.filter { $0.severity == .warning }.map { ($0.file as NSString).lastPathComponent })
        for file in ["azure_ad_device_registration_or_join_without_mfa.yml",
                     "azure_ad_only_single_factor_auth_required.yml", "azure_ad_risky_sign_ins_with_singlefactorauth_from_unknown_devices.yml",
                     "azure_ad_sign_ins_from_unknown_devices.yml", "azure_mfa_denies.yml"] {
            #expect(warned.contains(file), "\(file) uses beta-only fields and should warn")
        }
        #expect(!warned.contains("azure_account_lockout.yml"))
        // userAgent is a v1.0 signIn property (Microsoft's v1.0 metadata): no warning.
        #expect(!warned.contains("azure_ad_azurehound_discovery.yml"))
        let beta = set.diagnostics.first { $0.message.contains("AuthenticationRequirement") }
        #expect(beta?.message.contains("beta") == true && beta?.line ?? 0 > 1 && beta?.column ?? 0 > 1)
        // The DRL asks alerts to credit authors: every rule keeps its author.
        #expect(set.detections.allSatisfy { $0.metadata.author?.isEmpty == false })
    }

    /// For each rule whose fields exist in Graph v1.0: an event built to match it, written the
    /// way Graph sends it (numbers as numbers, booleans as booleans).
    static let matching: [(String, String)] = [
        ("azure_account_lockout.yml", #"{"status":{"errorCode":50053}}"#),
        ("azure_user_login_blocked_by_conditional_access.yml", #"{"status":{"errorCode":53003}}"#),
        ("azure_conditional_access_failure.yml", #"{"status":{"errorCode":53003,"failureReason":"Blocked by Conditional Access"}}"#),
        ("azure_blocked_account_attempt.yml", #"{"status":{"errorCode":50057,"failureReason":"Failure"}}"#),
        ("azure_login_to_disabled_account.yml", #"{"status":{"errorCode":50057,"failureReason":"User account is disabled. The account has been disabled by an administrator."}}"#),
        ("azure_mfa_interrupted.yml", #"{"status":{"errorCode":500121,"failureReason":"Authentication failed during strong authentication request."}}"#),
        ("azure_unusual_authentication_interruption.yml", #"{"status":{"errorCode":50158,"failureReason":"ExternalSecurityChallenge - External security challenge was not satisfied"}}"#),
        ("azure_ad_sign_ins_from_noncompliant_devices.yml", #"{"deviceDetail":{"isCompliant":false}}"#),
        ("azure_ad_device_registration_or_join_without_mfa.yml", #"{"resourceDisplayName":"Device Registration Service","conditionalAccessStatus":"success"}"#),
        ("azure_ad_azurehound_discovery.yml", #"{"status":{"errorCode":0},"userAgent":"azurehound/v2.1.7"}"#),
        // Beta's fields, and Sentinel's Status column as Graph's status object.
        ("azure_ad_only_single_factor_auth_required.yml", #"{"status":{"errorCode":0},"authenticationRequirement":"singleFactorAuthentication"}"#),
        ("azure_ad_risky_sign_ins_with_singlefactorauth_from_unknown_devices.yml", #"{"status":{"errorCode":0},"authenticationRequirement":"singleFactorAuthentication","riskState":"atRisk","deviceDetail":{"trustType":null}}"#),
        ("azure_ad_suspicious_signin_bypassing_mfa.yml", #"{"status":{"errorCode":0},"userAgent":"BAV2ROPC"}"#),
        ("azure_ad_sign_ins_from_unknown_devices.yml", #"{"status":{"errorCode":0},"authenticationRequirement":"singleFactorAuthentication","networkLocationDetails":[],"deviceDetail":{"deviceId":""}}"#),
        ("azure_mfa_denies.yml", #"{"status":{"errorCode":500121,"failureReason":"Authentication failed during strong authentication request.","additionalDetails":"MFA denied; user declined the authentication"},"authenticationRequirement":"multiFactorAuthentication"}"#),
    ]

    @Test func everyRuleThatCanMatchGraphDataHasAnEventThatFiresIt() throws {
        let files = try RuleSource.read(paths: [RepoPaths.sigma]).map { ($0.path as NSString).lastPathComponent }
        #expect(Set(files) == Set(Self.matching.map(\.0) + Self.cannotFire))
    }

    @Test(arguments: matching)
    func v1RulesFireOnMatchingEvents(_ file: String, _ fields: String) throws {
        let rule = try #require(SigmaHQRulesTests.set.detections.first { $0.metadata.file.hasSuffix(file) })
        var object = ["id": JSONValue.string("e1"), "createdDateTime": .string("2024-05-01T10:00:00Z"), "userId": .string("u1")]
        if case .object(let extra) = try SignIn.json(fields) { object.merge(extra) { $1 } }
        let event = try SignInEvents.event(.object(object))
        let engine = PlainEvaluator(rules: RuleSet(detections: [rule]))
        let (_, alerts) = engine.process(EngineState(), events: [event], now: event.eventTime.addingTimeInterval(60))
        #expect(alerts.count == 1, "\(file)")
        #expect(alerts.first?.rule.author == rule.metadata.author)
        // And an ordinary successful sign-in does not fire it.
        let benign = try SignInEvents.event(.object(["id": .string("ok"), "createdDateTime": .string("2024-05-01T10:00:00Z"),
                                                     "status": .object(["errorCode": .int(0)]),
                                                     "deviceDetail": .object(["isCompliant": .bool(true)])]))
        let (_, none) = engine.process(EngineState(), events: [benign], now: benign.eventTime)
        #expect(none.isEmpty, "\(file) fired on a benign sign-in")
    }

    @Test func aWholeFolderWithOtherLogSourcesSkipsThemWithNotes() {
        let set = loadRules("""
        title: Windows thing
        id: w1
        logsource: {product: windows, category: process_creation}
        detection: {selection: {Image|endswith: '\\cmd.exe'}, condition: selection}
        ---
        title: Lockout
        id: l1
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 50053}, condition: selection}
        """)
        #expect(set.detections.map(\.metadata.id) == ["l1"])
        #expect(set.skippedCount == 1)
        #expect(set.diagnostics.contains { $0.severity == .note && $0.message.contains("not Azure sign-in logs") && $0.line == 3 })
    }
}
