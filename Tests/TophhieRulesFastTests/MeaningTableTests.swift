import Foundation
import Testing
import TophhieAgent
import TophhieAuth
import TophhieJSON
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

/// The table of meaning (`Tests/Meaning`): every case against every evaluator and every event
/// type, so a difference between the evaluators or at the event seam (a keyword search that
/// one event type cannot answer) fails here.
@Suite struct MeaningTableTests {
    /// The kinds of event the evaluators meet.
    enum EventType: String, CaseIterable, Sendable {
        /// The live agent's sign-in.
        case live
        /// The live agent's sign-in as a poll holds it: only the parts the rules read.
        case liveKept
        /// Replay's and the rule tests' sign-in held as its JSON.
        case json
        /// The fast engine's sign-in read into slots.
        case slots
    }

    static var folder: String { RepoPaths.root.appendingPathComponent("Tests/Meaning").path }

    /// Every case's name: `NAME.yml` beside `NAME.tests.yml`.
    static var caseNames: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.filter { $0.hasSuffix(".tests.yml") }.map { String($0.dropLast(".tests.yml".count)) }.sorted()
    }

    @Test func theTableHasItsCases() {
        #expect(Self.caseNames.count >= 8, "\(Self.caseNames)")
    }

    @Test(arguments: caseNames, EngineChoice.allCases)
    func everyEventTypeGivesTheExpectedAlerts(name: String, evaluator choice: EngineChoice) throws {
        let rules = RuleLoader.load(try RuleSource.read(paths: ["\(Self.folder)/\(name).yml"]), placeholders: .testing)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let file = try RuleTestFile(source: try #require(try RuleSource.read(paths: ["\(Self.folder)/\(name).tests.yml"], select: RuleSource.isTestFile).first))
        let evaluator = choice.evaluator(rules: rules)
        // The slots the fast engine reads these rules' sign-ins into, every string kept where a
        // keyword search reads them.
        let layout = Engine(rules: rules).plan.layout
        for type in EventType.allCases {
            for testCase in file.cases {
                var state = EngineState()
                var fired: [[String]] = []
                for poll in testCase.polls {
                    let events = try poll.events.map { try Self.event($0, as: type, layout: layout, keeping: evaluator.eventPaths) }
                    let outcome = evaluator.evaluate(state, events: events, now: poll.at, alertOnlyAfter: testCase.alertAfter)
                    state = outcome.state
                    fired += outcome.alerts.filter { $0.rule.id == file.rule }.map { $0.events.map(\.id).sorted() }
                }
                let expected = testCase.expected.sorted { $0.lexicographicallyPrecedes($1) }
                #expect(fired.sorted { $0.lexicographicallyPrecedes($1) } == expected,
                        "\(name).tests.yml:\(testCase.line) \(testCase.name): \(choice.rawValue) evaluator, \(type.rawValue) events")
            }
        }
    }

    /// A test case's sign-in as the given type.
    /// - Parameter keeping: the paths the evaluator reads (nil: every string).
    static func event(_ event: JSONRuleEvent, as type: EventType, layout: EventLayout, keeping: [[String]]? = nil) throws -> any RuleEvent {
        switch type {
        case .json: return event
        case .live: return try TophhieSignInEvent(json: event.json)
        case .liveKept:
            let live = try TophhieSignInEvent(json: event.json)
            return SignInKeeping(paths: keeping, digest: { JSONRuleEvent.revision(of: $0) }).keep(live)
        case .slots: return try layout.event(Array(event.json.canonicalData()))
        }
    }

    /// The live event, replay's and the fast engine's give the same keyword texts: every
    /// string of the record.
    @Test func everyEventTypeGivesEveryStringOfTheRecord() throws {
        let json = try SignIn.json(#"{"id": "k", "createdDateTime": "2024-05-01T10:00:00Z", "status": {"errorCode": 0, "additionalDetails": "MFA"}, "userAgent": "python-requests/2.31", "authenticationDetails": [{"authenticationMethod": "Password"}], "isInteractive": true, "riskEventTypes": ["a", "b"]}"#)
        let event = try SignInEvents.event(json)
        let layout = EventLayout(slots: [FieldSlot.intern(["userAgent"])], keepsKeywordTexts: true)
        let expected = ["Password", "2024-05-01T10:00:00Z", "k", "a", "b", "MFA", "python-requests/2.31"]
        for type in EventType.allCases {
            #expect(try Self.event(event, as: type, layout: layout).keywordTexts() == expected, "\(type)")
        }
    }

    /// A poll keeps of each sign-in only what its rules read: the rules' paths answer as the
    /// whole record does, the rest is gone, and the revision is still the whole record's (a
    /// change in a field no rule reads is still an update, as replay sees it).
    @Test func aKeptSignInAnswersTheRulesPathsAndKeepsTheWholeRecordsRevision() throws {
        let json = try SignIn.json(#"{"id": "k", "createdDateTime": "2024-05-01T10:00:00Z", "status": {"errorCode": 0}, "userAgent": "x", "authenticationDetails": [{"authenticationMethod": "Password", "succeeded": true}, {"authenticationMethod": "Previously satisfied"}], "networkLocationDetails": [{"networkType": "trustedNamedLocation"}]}"#)
        let live = try TophhieSignInEvent(json: json)
        let kept = SignInKeeping(paths: [["authenticationDetails", "authenticationMethod"], ["status", "errorCode"]], digest: { JSONRuleEvent.revision(of: $0) }).keep(live)
        #expect(kept.field("authenticationDetails.authenticationMethod") == .array([.string("Password"), .string("Previously satisfied")]))
        #expect(kept.field("status.errorCode") == .int(0))
        #expect(kept.field("userAgent") == nil && kept.field("status") == nil)
        #expect(kept.keywordTexts() == ["Password", "Previously satisfied"])
        #expect(kept.revision == JSONRuleEvent.revision(of: json) && kept.revision == live.revision)
        #expect(kept.eventID == live.id && kept.eventTime == live.createdDateTime && kept.stream == live.stream)
        let whole = SignInKeeping(paths: nil, digest: { JSONRuleEvent.revision(of: $0) }).keep(live)
        #expect(whole.keywordTexts() == live.keywordTexts() && whole.field("userAgent") == .string("x"))
    }
}
