import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// An event answered from `MatchMemo` must get the rules its own values satisfy: values that
/// Swift calls equal but whose bytes differ, numbers of other kinds, and a slot read both for
/// its presence and for its value must each keep their own answer.
@Suite struct MatchMemoTests {
    static let rules = """
        title: Exact cafe
        id: exact-cafe
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                appDisplayName: "Caf\u{E9}"
            condition: selection
        level: low
        ---
        title: Located
        id: located
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                location.geoCoordinates.latitude|exists: true
            condition: selection
        level: low
        ---
        title: North
        id: north
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                location.geoCoordinates.longitude|exists: true
                location.geoCoordinates.latitude|gt: 40
            condition: selection
        level: low
        ---
        title: Locked out
        id: locked-out
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                status.errorCode: 50053
            denied:
                status.additionalDetails|contains: 'MFA denied'
            condition: selection or denied
        level: low
        ---
        title: Same name
        id: same-name
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                userDisplayName|fieldref: userPrincipalName
            condition: selection
        level: low
        """

    /// Events made from 24 sets of values: twelve drawn at random, and beside each one a set
    /// that differs from it in one field only, so an answer kept for one must not be given to
    /// the other.
    /// - Parameter layout: read through it as a replay reads (slot events), else held whole.
    static func events(count: Int, seed: UInt64, layout: EventLayout? = nil) throws -> [any RuleEvent] {
        var generator = SeededGenerator(seed: seed)
        let pools: [[JSONValue?]] = [
            [.string("Caf\u{E9}"), .string("Cafe\u{301}"), .string("CAF\u{C9}"), .null, nil, .array([.string("Caf\u{E9}")])],
            [.int(50053), .double(50053), .string("50053"), .int(0), .double(-0.0), .double(0), nil],
            [.double(51.5), .double(38.7), .double(40), .int(41), nil, .null],
            [.string("MFA denied; user declined"), .string("MFA completed"), .null, nil],
            [.string("ada@contoso.com"), .string("Ada@contoso.com"), .string("grace@contoso.com")],
        ]
        func pick(_ pool: Int) -> JSONValue? { pools[pool][Int.random(in: 0..<pools[pool].count, using: &generator)] }
        var sets: [[JSONValue?]] = []
        for n in 0..<12 {
            let base = pools.indices.map(pick)
            var other = base
            let field = n % pools.count
            while MatchMemo.same(other[field], base[field]) { other[field] = pick(field) }
            sets += [base, other]
        }
        return try (0..<count).map { n in
            let values = sets[Int.random(in: 0..<sets.count, using: &generator)]
            var object: [String: JSONValue] = ["id": .string("e\(n)"), "createdDateTime": .string("2024-05-01T10:00:00Z"),
                                               "userPrincipalName": .string("ada@contoso.com")]
            var status: [String: JSONValue] = [:], coordinates: [String: JSONValue] = ["longitude": .double(-0.1)]
            if let app = values[0] { object["appDisplayName"] = app }
            if let code = values[1] { status["errorCode"] = code }
            if let latitude = values[2] { coordinates["latitude"] = latitude }
            if let detail = values[3] { status["additionalDetails"] = detail }
            if let name = values[4] { object["userDisplayName"] = name }
            object["status"] = .object(status)
            object["location"] = .object(["geoCoordinates": .object(coordinates)])
            if let layout { return try layout.event(Array(JSONValue.object(object).canonicalData())) }
            return try SignInEvents.event(.object(object))
        }
    }

    /// The rules each event satisfies, by each rule's own detection.
    static func truth(_ set: RuleSet, _ event: any RuleEvent) -> [Int] {
        set.detections.indices.filter { set.detections[$0].detection.matches(event) }
    }

    @Test func anAnswerFromTheMemoIsTheEventsOwn() throws {
        let set = RuleLoader.load([RuleSource(path: "memo.yml", text: Self.rules)])
        #expect(!set.hasErrors, "\(set.diagnostics)")
        let key = try #require(MatchMemo.Key(set.detections.map(\.detection)))
        let latitude = FieldSlot.intern(["location", "geoCoordinates", "latitude"])
        let longitude = FieldSlot.intern(["location", "geoCoordinates", "longitude"])
        // The latitude is read by value by one rule, so it counts by value; the longitude only
        // by `exists`, so by presence.
        #expect(zip(key.slots, key.presenceOnly).first { $0.0 == latitude }?.1 == false)
        #expect(zip(key.slots, key.presenceOnly).first { $0.0 == longitude }?.1 == true)
        #expect(key.slots.contains(FieldSlot.intern(["userPrincipalName"])), "a field reference's other field counts")

        // Held whole, and read into slots as a replay reads them (compared where they lie).
        for layout in [nil, Engine(rules: set).eventLayout] {
        var memo = MatchMemo(key)
        var answered = 0, matched = 0
        for event in try Self.events(count: 3000, seed: 5, layout: layout) {
            let expected = Self.truth(set, event)
            if !expected.isEmpty { matched += 1 }
            if let known = memo.answer(for: fastEvent(event)) {
                answered += 1
                #expect(known == expected, "\(event.eventID): \(String(describing: event.field("appDisplayName"))), \(String(describing: event.field("status"))), \(String(describing: event.field("location")))")
            } else {
                memo.remember(expected)
            }
        }
        #expect(memo.isOn)
        #expect(answered > 1500, "the memo answered most events (\(answered))")
        #expect(matched > 1000, "the events match rules, so the answers mean something (\(matched))")
        }
    }

    @Test func preparedEventsMatchAsTheirRulesSay() throws {
        let set = RuleLoader.load([RuleSource(path: "memo.yml", text: Self.rules)])
        let engine = Engine(rules: set)
        let events = try Self.events(count: 2000, seed: 9, layout: engine.eventLayout)
        #expect(events.allSatisfy { $0 is SlotEvent })
        let prepared = engine.prepare(events)
        #expect(prepared.count == events.count)
        for (event, result) in zip(events, prepared) {
            #expect(result.event.eventID == event.eventID)
            #expect(result.matched == Self.truth(set, event), "\(event.eventID)")
        }
    }

    /// A rule set that reads a value every event has its own of (here the id) turns the memo
    /// off for the batch once most events missed; one that reads an object, at the first.
    @Test func theMemoStandsAsideWhereItCannotAnswer() throws {
        func rules(_ selection: String) -> RuleSet {
            RuleLoader.load([RuleSource(path: "aside.yml", text: """
                title: Aside
                id: aside
                logsource: {product: azure, service: signinlogs}
                detection:
                    selection:
                        \(selection)
                    condition: selection
                level: low
                """)])
        }
        for (selection, turnsOffAt) in [("id: 'e7'", 64), ("status: '{\"errorCode\":0}'", 1)] {
            let set = rules(selection)
            #expect(!set.hasErrors, "\(set.diagnostics)")
            let key = try #require(MatchMemo.Key(set.detections.map(\.detection)))
            var memo = MatchMemo(key)
            var asked = 0, answered = 0
            for n in 0..<200 where memo.isOn {
                let event = try SignInEvents.event(.object(["id": .string("e\(n % 100)"), "createdDateTime": .string("2024-05-01T10:00:00Z"),
                                                           "status": .object(["errorCode": .int(0)])]))
                asked += 1
                if memo.answer(for: fastEvent(event)) != nil { answered += 1 } else { memo.remember(Self.truth(set, event)) }
            }
            #expect(answered == 0, "\(selection): every event is worked out")
            #expect(!memo.isOn && asked == turnsOffAt, "\(selection): turned off after \(asked) event(s)")
        }

        let keywords = RuleLoader.load([RuleSource(path: "keywords.yml", text: """
            title: Keywords
            id: keywords
            logsource: {product: azure, service: signinlogs}
            detection:
                keywords:
                    - 'evil'
                condition: keywords
            level: low
            """)])
        #expect(!keywords.hasErrors, "\(keywords.diagnostics)")
        #expect(MatchMemo.Key(keywords.detections.map(\.detection)) == nil, "a keyword search reads every string")
    }

    @Test func valuesAreTheSameOnlyByteForByte() {
        #expect(MatchMemo.same(.string("Caf\u{E9}"), .string("Caf\u{E9}")))
        #expect(!MatchMemo.same(.string("Caf\u{E9}"), .string("Cafe\u{301}")))
        #expect(!MatchMemo.same(.int(1), .double(1)))
        #expect(!MatchMemo.same(.double(0), .double(-0.0)))
        #expect(MatchMemo.same(.double(.nan), .double(.nan)))
        #expect(!MatchMemo.same(.null, nil))
        #expect(MatchMemo.same(.array([.string("a"), .int(2)]), .array([.string("a"), .int(2)])))
        #expect(!MatchMemo.same(.array([.string("a")]), .array([.string("a"), .int(2)])))
    }

    /// A slot only `exists` reads is keyed by its presence, and a JSON null is absent to it: a
    /// sign-in with a value after one with null must not take the null one's answer.
    @Test func aNullIsAbsentToAnExistsOnlyKey() throws {
        let set = RuleLoader.load([RuleSource(path: "exists.yml", text: """
            title: Has an app
            id: has-app
            logsource: {product: azure, service: signinlogs}
            detection:
                selection:
                    appDisplayName|exists: true
                condition: selection
            level: low
            """)])
        let engine = Engine(rules: set)
        let layout = try #require(engine.eventLayout)
        let apps = [#""appDisplayName": "Outlook", "#, #""appDisplayName": null, "#, "", #""appDisplayName": "Teams", "#]
        let texts = (0..<40).map { n in
            #"{"id": "e\#(n)", "createdDateTime": "2024-05-01T10:00:00Z", \#(apps[n % apps.count])"userId": "u1"}"#
        }
        let events: [any RuleEvent] = try texts.map { try layout.event(Array($0.utf8)) }
        let prepared = engine.prepare(events)
        let expected = try texts.map { text in PlainMatching.matches(set.detections[0].detection, try SignIn.event(text)) ? [0] : [] }
        #expect(prepared.map { $0.matched ?? [] } == expected)
        #expect(expected.filter { !$0.isEmpty }.count == 20)
    }
}
