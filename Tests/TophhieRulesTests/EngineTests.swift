import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

@Suite(.timeLimit(.minutes(20))) struct EngineTests {

    var engine: PlainEvaluator { PlainEvaluator(rules: loadRules(SampleRules.burst)) }

    @Test func fiveFailuresWhoseLastTwoArriveThreeHoursLateFireExactlyOnce() {
        let first = (0..<3).map { SignIn.failure(Double($0), id: "f\($0)") }
        let late = (3..<5).map { SignIn.failure(Double($0), id: "f\($0)") }
        var state = EngineState()
        var all: [Alert] = []
        // Poll 1, five minutes after: three failures, no alert.
        var (next, alerts) = engine.process(state, events: first, now: time(5))
        #expect(alerts.isEmpty)
        state = next
        // Poll 2, three hours later: the trailing window re-reads everything, two are new.
        (next, alerts) = engine.process(state, events: first + late, now: time(180))
        all += alerts
        state = next
        // Poll 3: the same events again.
        (next, alerts) = engine.process(state, events: first + late, now: time(185))
        all += alerts
        #expect(all.count == 1)
        let alert = all[0]
        #expect(alert.rule.id == "burst")
        #expect(alert.events.map(\.id) == ["f0", "f1", "f2", "f3", "f4"])
        #expect(alert.late)
        #expect(alert.lateBySeconds == 10_560.0)
        #expect(alert.detectedAt == time(180))
        #expect(alert.firstEventTime == time(0) && alert.lastEventTime == time(4))
        #expect(alert.rule.author == "Test Author" && alert.rule.tags == ["attack.t1110"] && alert.level == .high)
        #expect(alert.group == [AlertGroupValue(field: "userId", value: "u1")])
    }

    /// A group is swept for windows only when it has at least its condition's least count of
    /// matches: the least is exact, so a group holding just that many still alerts, under every
    /// kind of bound, and a condition with no lower bound sweeps a group of one.
    @Test(arguments: [
        ("{gt: 2}", 3, true), ("{gt: 2}", 2, false), ("{gte: 3}", 3, true), ("{gte: 3}", 2, false),
        ("{eq: 3}", 3, true), ("{eq: 3}", 2, false), ("{lt: 3}", 1, true), ("{lte: 1}", 1, true),
        ("{neq: 2}", 1, true), ("{gte: 2, lte: 3}", 2, true),
    ])
    func aGroupWithTheLeastCountItsConditionNeedsIsSwept(condition: String, failures: Int, alerts: Bool) {
        let rules = loadRules("""
        title: Failed sign-in
        id: failed
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 50126}, condition: selection}
        ---
        title: Failures
        id: failures
        correlation:
            type: event_count
            rules: [failed]
            group-by: [userId]
            timespan: 10m
            condition: \(condition)
        """)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let events = (0..<failures).map { SignIn.failure(Double($0), id: "f\($0)") }
        let (_, found) = PlainEvaluator(rules: rules).process(EngineState(), events: events, now: time(30))
        #expect(found.filter { $0.rule.id == "failures" }.isEmpty == !alerts)
    }

    /// An event two referenced rules both match counts once in an event count.
    @Test func anEventTwoReferencedRulesMatchCountsOnce() {
        let rules = loadRules("""
        title: Wrong password
        id: wrong
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 50126}, condition: selection}
        ---
        title: Any failure
        id: failure
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: [50126, 50053]}, condition: selection}
        ---
        title: Failures
        id: failures
        correlation: {type: event_count, rules: [wrong, failure], group-by: [userId], timespan: 10m, condition: {gte: 3}}
        """)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let engine = PlainEvaluator(rules: rules)
        let two = (0..<2).map { SignIn.failure(Double($0), id: "f\($0)") }
        #expect(engine.process(EngineState(), events: two, now: time(30)).1.filter { $0.rule.id == "failures" }.isEmpty)
        let three = two + [SignIn.failure(2, id: "f2", code: 50053)]
        let found = engine.process(EngineState(), events: three, now: time(30)).1.filter { $0.rule.id == "failures" }
        #expect(found.map(\.eventCount) == [3])
    }

    @Test func theLeastCountOfAConditionIsItsHighestLowerBound() {
        #expect(CorrelationCondition([(.gt, 2)]).leastHolding == 3)
        #expect(CorrelationCondition([(.gte, 2)]).leastHolding == 2)
        #expect(CorrelationCondition([(.eq, 4)]).leastHolding == 4)
        #expect(CorrelationCondition([(.lt, 4)]).leastHolding == 0)
        #expect(CorrelationCondition([(.lte, 4), (.neq, 2)]).leastHolding == 0)
        #expect(CorrelationCondition([(.gte, 2), (.gt, 5), (.lte, 9)]).leastHolding == 6)
    }

    @Test func onTimeAlertsAreNotLate() {
        let events = (0..<5).map { SignIn.failure(Double($0), id: "f\($0)") }
        let (_, alerts) = engine.process(EngineState(), events: events, now: time(8))
        #expect(alerts.count == 1)
        #expect(!alerts[0].late && alerts[0].lateBySeconds == nil)
    }

    @Test func theSameEventsReplayedTwiceFireOnce() {
        let events = (0..<6).map { SignIn.failure(Double($0), id: "f\($0)") }
        let (state, first) = engine.process(EngineState(), events: events, now: time(10))
        let (_, second) = engine.process(state, events: events.reversed(), now: time(20))
        #expect(first.count == 1)
        #expect(second.isEmpty)
    }

    @Test func duplicatesInsideOnePollCountOnce() {
        let events = (0..<4).map { SignIn.failure(Double($0), id: "f\($0)") } + [SignIn.failure(3, id: "f3")]
        let (_, alerts) = engine.process(EngineState(), events: events, now: time(10))
        #expect(alerts.isEmpty)
    }

    @Test func anEmptyWeekFiresNothingAndStaysSmall() {
        var state = EngineState()
        for hour in stride(from: 0, through: 7 * 24, by: 1) {
            let (next, alerts) = engine.process(state, events: [], now: time(Double(hour) * 60))
            #expect(alerts.isEmpty)
            state = next
        }
        #expect(state.size == 0)
    }

    @Test func stateIsBoundedByTheHorizonAndTheIDMemory() {
        var state = EngineState()
        // Forty days of one failure every ten minutes: never five in ten minutes.
        for day in 0..<40 {
            let events = (0..<144).map { SignIn.failure(Double(day * 1440 + $0 * 10), id: "d\(day)-\($0)") }
            let (next, alerts) = engine.process(state, events: events, now: time(Double(day * 1440 + 1440)))
            #expect(alerts.isEmpty)
            state = next
        }
        // Window events of the last 24h10m only; ids (with their hashes) of the last 31 days.
        #expect(state.recent.count <= 146)
        // (t − 31 d, now]: the event exactly 31 days old is gone.
        #expect(state.seen.count == 31 * 144 - 1)
        #expect(state.revisions?.count == 31 * 144 - 1)
        #expect(state.forgottenBefore == time(Double(40 * 1440)).addingTimeInterval(-engine.graph.horizon))
    }

    @Test func eventsOlderThanTheHorizonAreIgnoredOnceForgotten() {
        let (state, _) = engine.process(EngineState(), events: [], now: time(3 * 1440))
        let old = (0..<5).map { SignIn.failure(Double($0), id: "old\($0)") }
        let (_, alerts) = engine.process(state, events: old, now: time(3 * 1440 + 5))
        #expect(alerts.isEmpty)
    }

    @Test func outputIsDeterministicByteForByte() throws {
        let events = (0..<12).map { SignIn.failure(Double($0 * 2), id: "f\($0)") }
        let a = engine.process(EngineState(), events: events, now: time(60))
        let b = engine.process(EngineState(), events: events.shuffled(), now: time(60))
        #expect(a.0 == b.0)
        #expect(a.1.map(AlertJSON.line) == b.1.map(AlertJSON.line))
        #expect(!a.1.isEmpty)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(a.0) == encoder.encode(b.0))
        let decoded = try JSONDecoder().decode(EngineState.self, from: encoder.encode(a.0))
        #expect(decoded == a.0)
    }

    @Test func alertIDsDependOnRuleGroupAndEvents() {
        let events = (0..<5).map { SignIn.failure(Double($0), id: "f\($0)") }
        let (_, a) = engine.process(EngineState(), events: events, now: time(5))
        let (_, b) = engine.process(EngineState(), events: events, now: time(500))
        #expect(a.count == 1 && b.count == 1)
        #expect(a[0].id == b[0].id)
        #expect(a[0].id.count == 32)
        let other = (0..<5).map { SignIn.failure(Double($0), id: "g\($0)") }
        let (_, c) = engine.process(EngineState(), events: other, now: time(5))
        #expect(c[0].id != a[0].id)
    }

    @Test func suppressionDefaultsToTheTimespanAndIsPerGroup() {
        var events = (0..<12).map { SignIn.failure(Double($0), id: "a\($0)") }
        events += (0..<5).map { SignIn.at(Double($0), id: "b\($0)", ["userId": .string("u2"), "status": .object(["errorCode": .int(50053)])]) }
        let (_, alerts) = engine.process(EngineState(), events: events, now: time(30))
        // u1: a0–a4 fires; a5…a11 end inside the episode (suppress 10m after a4) until a… ends past 14m; u2 once.
        #expect(alerts.map { $0.group.first!.value }.sorted() == ["u1", "u2"])
    }

    @Test func learningModeWithholdsHistoryButRemembersTheEpisode() {
        let history = (0..<5).map { SignIn.failure(Double($0), id: "h\($0)") }
        let (state, alerts) = engine.process(EngineState(), events: history, now: time(60), alertOnlyAfter: time(30))
        #expect(alerts.isEmpty)
        // One more failure inside the same episode does not alert later either.
        let (_, later) = engine.process(state, events: [SignIn.failure(6, id: "h5")], now: time(65))
        #expect(later.isEmpty)
        // A fresh burst after the live start does.
        let live = (40..<45).map { SignIn.failure(Double($0), id: "l\($0)") }
        let (_, liveAlerts) = engine.process(state, events: live, now: time(50), alertOnlyAfter: time(30))
        #expect(liveAlerts.count == 1)
    }

    @Test func firstSeenDuringLearningDoesNotFireAfterItDoes() {
        let rules = loadRules("""
        title: ok
        id: ok
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 0}, condition: selection}
        ---
        title: New country
        id: new-country
        correlation:
            type: first_seen
            rules: [ok]
            group-by: [userId]
            fields: [location.countryOrRegion]
            learning: {period: 14d, events: 3}
            forget: 30d
        """)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let engine = PlainEvaluator(rules: rules)
        func signIn(_ day: Double, _ id: String, _ country: String) -> JSONRuleEvent {
            SignIn.at(day * 1440, id: id, ["location": .object(["countryOrRegion": .string(country)])])
        }
        var state = EngineState()
        var fired: [String] = []
        for (day, id, country) in [(0.0, "a", "PT"), (1, "b", "ES"), (5, "c", "FR"), (15, "d", "PT"), (16, "e", "DE"), (17, "f", "DE"), (60, "g", "ES")] {
            let (next, alerts) = engine.process(state, events: [signIn(day, id, country)], now: time(day * 1440 + 5))
            state = next
            fired += alerts.flatMap { $0.events.map(\.id) }
        }
        // ES and FR were new during learning (days 1 and 5): quiet. DE on day 16: fires once.
        // ES on day 60 was last seen on day 1, past the 30-day forget age: new again.
        #expect(fired == ["e", "g"])
    }

    @Test(arguments: [
        // Ten sign-ins on day one, then the user's own phone country on day 2: the count alone
        // used to end learning, so day 2 fired.
        ([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], 1.0, false),
        // Two sign-ins in three weeks: the period alone has passed, the count has not.
        ([0.0, 7.0], 21.0, false),
        // Both reached: the new country fires.
        ([0.0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 15.0, true),
    ])
    func learningEndsOnlyWhenBothThePeriodAndTheCountAreReached(baselineDays: [Double], newDay: Double, fires: Bool) {
        let rules = loadRules("""
        title: ok
        id: ok
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 0}, condition: selection}
        ---
        title: New country
        id: new-country
        correlation:
            type: first_seen
            rules: [ok]
            group-by: [userId]
            fields: [location.countryOrRegion]
            learning: {period: 14d, events: 10}
        """)
        let engine = PlainEvaluator(rules: rules)
        let home: [any RuleEvent] = baselineDays.enumerated().map { index, day in
            SignIn.at(day * 1440, id: "b\(index)", ["location": .object(["countryOrRegion": .string("PT")])])
        }
        let (state, quiet) = engine.process(EngineState(), events: home, now: time(newDay * 1440 - 60))
        #expect(quiet.isEmpty)
        let away = SignIn.at(newDay * 1440, id: "new", ["location": .object(["countryOrRegion": .string("ES")])])
        let (_, alerts) = engine.process(state, events: [away], now: time(newDay * 1440 + 5))
        #expect(alerts.map { $0.events.map(\.id) } == (fires ? [["new"]] : []))
    }

    static let placeRules = """
    title: ok
    id: ok
    name: ok
    logsource: {product: azure, service: signinlogs}
    detection: {selection: {ResultType: 0}, condition: selection}
    ---
    title: mfa
    id: mfa
    name: mfa
    logsource: {product: azure, service: signinlogs}
    detection: {selection: {ResultType: 50074}, condition: selection}
    ---
    title: New place, password right
    id: ffnp
    correlation:
        type: first_seen
        rules: [ok, mfa]
        alert-on: [mfa]
        group-by: [userId]
        fields: [location.countryOrRegion]
        learning: {period: 1d, events: 2}
    """

    /// An `alert-on` event only checks: it must not leave a baseline (or a rule's table) where
    /// there was none, and must leave one that holds something as it was, but for learning.
    @Test func anAlertOnlyEventLeavesNoBaselineWhereThereWasNone() {
        let rules = loadRules(Self.placeRules)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let engine = PlainEvaluator(rules: rules)
        func signIn(_ minutes: Double, _ id: String, _ code: Int64, _ country: String, user: String = "u1") -> JSONRuleEvent {
            SignIn.at(minutes, id: id, ["status": .object(["errorCode": .int(code)]), "userId": .string(user),
                                        "location": .object(["countryOrRegion": .string(country)])])
        }
        // Attempts alone: nothing learnt, nothing kept.
        let (attempts, none) = engine.process(EngineState(), events: [signIn(0, "a1", 50074, "NG"), signIn(1, "a2", 50074, "NG")], now: time(5))
        #expect(none.isEmpty)
        #expect(attempts.baselines.isEmpty)
        // Sign-ins teach; an attempt for another user adds nothing for that user.
        let (taught, _) = engine.process(attempts, events: [signIn(10, "s1", 0, "PT"), signIn(3000, "s2", 0, "PT")], now: time(3005))
        #expect(taught.baselines["ffnp"]?.keys.sorted() == ["u1"])
        let (other, _) = engine.process(taught, events: [signIn(3010, "o1", 50074, "NG", user: "u2")], now: time(3015))
        #expect(other.baselines == taught.baselines)
        // Learnt: an attempt from a new country alerts and teaches nothing.
        let (after, alerts) = engine.process(other, events: [signIn(3020, "a3", 50074, "NG")], now: time(3025))
        #expect(alerts.map { $0.events.map(\.id) } == [["a3"]])
        #expect(after.baselines == other.baselines)
    }

    /// A pass takes its first-seen rules' tables out of the state while it runs: they come back,
    /// an emptied one too, and the table of a rule the pack no longer has stays as it was.
    @Test func firstSeenTablesComeBackAndOthersStayAsTheyWere() {
        let engine = PlainEvaluator(rules: loadRules(Self.placeRules))
        func signIn(_ minutes: Double, _ id: String, _ code: Int64, _ country: String) -> JSONRuleEvent {
            SignIn.at(minutes, id: id, ["status": .object(["errorCode": .int(code)]), "userId": .string("u1"),
                                        "location": .object(["countryOrRegion": .string(country)])])
        }
        var start = EngineState()
        start.baselines["gone"] = ["u9": EngineState.Baseline(learningStart: time(0), events: 3, known: ["pt": time(0)])]
        start.baselines["ffnp"] = [:]
        let (checked, _) = engine.process(start, events: [signIn(0, "a1", 50074, "NG")], now: time(5))
        #expect(checked.baselines == start.baselines)
        let (taught, _) = engine.process(checked, events: [signIn(10, "s1", 0, "PT"), signIn(20, "s2", 0, "PT")], now: time(25))
        #expect(taught.baselines["ffnp"]?["u1"]?.known == ["pt": time(20)])
        #expect(taught.baselines["ffnp"]?["u1"]?.events == 2)
        #expect(taught.baselines["gone"] == start.baselines["gone"])
    }

    @Test(arguments: [
        ("Edge 120.0.2210", "Edge"), ("Ios 17.4.1", "Ios"), ("Android 14", "Android"), ("Android 15", "Android"),
        ("Windows 10", "Windows"), ("Mobile Safari", "Mobile Safari"), ("Chrome 125.0.0 Mobile", "Chrome Mobile"),
        ("Windows10", "Windows10"), ("", ""),
        // spaces collapse as the split does, on the fast path too
        ("Mobile  Safari", "Mobile Safari"), (" Edge", "Edge"), ("Edge ", "Edge"), ("5G Phone", "Phone"), ("Édge 1", "Édge"),
        // the byte path for ASCII and the split for the rest agree (a space with a combining
        // mark on it is not a space to the split, so it is not one there either)
        ("  Chrome  1  Mobile 2  ", "Chrome Mobile"), ("1 2 3", ""), ("Firefox 0", "Firefox"), ("a 9b c", "a c"),
        ("Se\u{301} 1 x", "Se\u{301} x"), (" \u{301}1 x", " \u{301}1 x"),
    ])
    func versionNumbersAreDroppedDottedOrNot(text: String, expected: String) {
        #expect(PlainRun.withoutVersions(text) == expected)
    }

    @Test func valueCountTemporalAndChains() {
        let rules = loadRules("""
        title: fail
        id: fail
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType|gt: 0}, condition: selection}
        ---
        title: ok
        id: ok
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 0}, condition: selection}
        ---
        title: many addresses
        id: spray
        correlation:
            type: value_count
            rules: [fail]
            group-by: [userId]
            timespan: 1h
            condition: {field: IPAddress, gte: 3}
        ---
        title: fail and ok
        id: both
        correlation: {type: temporal, rules: [fail, ok], group-by: [userId], timespan: 5m}
        ---
        title: ok after spray
        id: chain
        correlation: {type: temporal_ordered, rules: [spray, ok], group-by: [userId], timespan: 1h}
        """)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let events = [
            SignIn.at(0, id: "x1", ["ipAddress": .string("1.1.1.1"), "status": .object(["errorCode": .int(50126)])]),
            SignIn.at(1, id: "x2", ["ipAddress": .string("1.1.1.1"), "status": .object(["errorCode": .int(50126)])]),
            SignIn.at(2, id: "x3", ["ipAddress": .string("2.2.2.2"), "status": .object(["errorCode": .int(50126)])]),
            SignIn.at(20, id: "x4", ["ipAddress": .string("3.3.3.3"), "status": .object(["errorCode": .int(50126)])]),
            SignIn.at(30, id: "ok1"),
        ]
        let (_, alerts) = PlainEvaluator(rules: rules).process(EngineState(), events: events, now: time(40))
        let byRule = Dictionary(grouping: alerts, by: \.rule.id)
        #expect(byRule["spray"]?.map { $0.events.map(\.id) } == nil, "spray feeds 'chain' and does not alert alone")
        #expect(byRule["chain"]?.map { $0.events.map(\.id) } == [["x1", "x2", "x3", "x4", "ok1"]])
        #expect(byRule["both"] == nil, "the success is ten minutes after the last failure")
        let (_, close) = PlainEvaluator(rules: rules).process(EngineState(), events: [events[0], SignIn.at(3, id: "ok2")], now: time(10))
        #expect(close.map(\.rule.id) == ["both"])
    }

    /// A chain that needs each of its rules is grouped from the rule with the fewest matches
    /// (`windowsFor`): the groups that rule never reaches are not made. One that needs only
    /// some of its rules (`temporal` with `gte: 2` of three) still finds a group the rarest
    /// rule does not reach; and a needed rule's groups are found whichever rule is the rarest.
    @Test func chainsNeedingEachRuleAreGroupedFromTheRarest() {
        let rules = loadRules("""
        title: a
        id: a
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {AppDisplayName: A}, condition: selection}
        ---
        title: b
        id: b
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {AppDisplayName: B}, condition: selection}
        ---
        title: c
        id: c
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {AppDisplayName: C}, condition: selection}
        ---
        title: two of three
        id: some
        correlation: {type: temporal, rules: [a, b, c], group-by: [userId], timespan: 10m, condition: {gte: 2}}
        ---
        title: all three
        id: every
        correlation: {type: temporal, rules: [a, b, c], group-by: [userId], timespan: 10m}
        ---
        title: c then a
        id: ordered
        correlation: {type: temporal_ordered, rules: [c, a], group-by: [userId], timespan: 10m}
        """)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        func app(_ minutes: Double, _ id: String, _ user: String, _ name: String) -> JSONRuleEvent {
            SignIn.at(minutes, id: id, ["userId": .string(user), "appDisplayName": .string(name)])
        }
        // u1 signs in to A and B (twice each), u2 to C then A, u3 to A, B and C: C is the rarest.
        let events = [
            app(0, "a1", "u1", "A"), app(1, "b1", "u1", "B"), app(2, "a2", "u1", "A"), app(3, "b2", "u1", "B"),
            app(0, "c2", "u2", "C"), app(1, "a3", "u2", "A"),
            app(0, "a4", "u3", "A"), app(1, "b3", "u3", "B"), app(2, "c3", "u3", "C"),
        ]
        let (_, alerts) = PlainEvaluator(rules: rules).process(EngineState(), events: events, now: time(20))
        let groups = Dictionary(grouping: alerts, by: \.rule.id).mapValues { $0.map { $0.group[0].value }.sorted() }
        #expect(groups["some"] == ["u1", "u2", "u3"])
        #expect(groups["every"] == ["u3"])
        #expect(groups["ordered"] == ["u2"])
    }

    /// A chain grouped by two fields passes over a common rule's events by their first value
    /// before making their keys: an event whose user has no group of the rarest rule makes no
    /// group; one whose user does is still grouped by both values, its user compared folded.
    @Test func chainsGroupedByTwoFieldsCompareTheFirstValueFolded() {
        let rules = loadRules("""
        title: failed
        id: failed
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 50126}, condition: selection}
        ---
        title: ok
        id: ok
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 0}, condition: selection}
        ---
        title: failed then ok from one address
        id: chain
        correlation: {type: temporal_ordered, rules: [failed, ok], group-by: [userId, IPAddress], timespan: 10m}
        """)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        func signIn(_ minutes: Double, _ id: String, _ user: String, _ address: String, failed: Bool) -> JSONRuleEvent {
            SignIn.at(minutes, id: id, ["userId": .string(user), "ipAddress": .string(address),
                                        "status": .object(["errorCode": .int(failed ? 50126 : 0)])])
        }
        let events = [
            signIn(0, "f1", "u1", "198.51.100.1", failed: true), signIn(1, "s1", "u1", "198.51.100.2", failed: false),
            signIn(0, "f2", "u2", "198.51.100.1", failed: true), signIn(1, "s2", "U2", "198.51.100.1", failed: false),
            signIn(1, "s3", "u3", "198.51.100.1", failed: false),
        ] + (0..<20).map { signIn(2, "o\($0)", "other\($0)", "198.51.100.1", failed: false) }
        let (_, alerts) = PlainEvaluator(rules: rules).process(EngineState(), events: events, now: time(20))
        #expect(alerts.map { $0.events.map(\.id) } == [["f2", "s2"]])
    }

    @Test func impossibleTravelUsesSpeedAndMinimumDistance() {
        let rules = loadRules(SampleRules.travel(timespan: "24h"))
        func at(_ minutes: Double, _ id: String, _ lat: Double, _ lon: Double) -> JSONRuleEvent { SignIn.located(minutes, id, city: id, lat, lon) }
        let engine = PlainEvaluator(rules: rules)
        // London → New York (5570 km) in 3 h: 1857 km/h.
        let (_, fast) = engine.process(EngineState(), events: [at(0, "lon", 51.5, -0.13), at(180, "nyc", 40.71, -74.0)], now: time(200))
        #expect(fast.count == 1)
        #expect(fast.first?.summary.contains("km/h") == true)
        // The distance told is the haversine's, whichever of the pair came first.
        let told = "\(Int(PlainRun.greatCircleKm(51.5, -0.13, 40.71, -74.0).rounded())) km from lon to nyc"
        #expect(fast.first?.summary.hasPrefix(told) == true, "\(fast.first?.summary ?? "")")
        let (_, reversed) = engine.process(EngineState(), events: [at(180, "lon", 51.5, -0.13), at(0, "nyc", 40.71, -74.0)], now: time(200))
        #expect(reversed.first?.summary.hasPrefix("\(Int(PlainRun.greatCircleKm(40.71, -74.0, 51.5, -0.13).rounded())) km from nyc to lon") == true,
                "\(reversed.first?.summary ?? "")")
        // Same pair eight hours apart: 696 km/h, possible.
        let (_, slow) = engine.process(EngineState(), events: [at(0, "lon", 51.5, -0.13), at(480, "nyc", 40.71, -74.0)], now: time(500))
        #expect(slow.isEmpty)
        // The late arrival of the earlier sign-in still pairs with the later one.
        let (state, none) = engine.process(EngineState(), events: [at(180, "nyc", 40.71, -74.0)], now: time(200))
        let (_, lateFast) = engine.process(state, events: [at(0, "lon", 51.5, -0.13)], now: time(400))
        #expect(none.isEmpty && lateFast.count == 1 && lateFast.first?.late == true)
        #expect(abs(PlainRun.greatCircleKm(51.5, -0.13, 40.71, -74.0) - 5570) < 20)
    }

    @Test func alertEventsCarryReadableFields() throws {
        let rules = loadRules("""
        title: Lockout
        id: lockout
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 50053}, condition: selection}
        """)
        let event = try SignIn.event(#"{"id":"l1","createdDateTime":"2024-05-01T10:00:00.1234567Z","status":{"errorCode":50053},"appDisplayName":"Azure Portal","ipAddress":"198.51.100.4","location":{"city":"Porto","countryOrRegion":"PT"},"deviceDetail":{"browser":"Firefox 126.0","operatingSystem":"Linux"}}"#)
        let (_, alerts) = PlainEvaluator(rules: rules).process(EngineState(), events: [event], now: time(5))
        let e = alerts.first?.events.first
        #expect(e?.errorCode == 50053 && e?.app == "Azure Portal" && e?.ipAddress == "198.51.100.4")
        #expect(e?.location == "Porto, PT" && e?.device == "Firefox 126.0 on Linux")
        // Joined byte for byte, whatever the script; one part alone is shown alone.
        let far = try SignIn.event(#"{"id":"l2","createdDateTime":"2024-05-01T10:01:00Z","status":{"errorCode":50053},"location":{"city":"S\u00e3o Paulo \u6771","countryOrRegion":"BR"},"deviceDetail":{"browser":"","operatingSystem":"iOS 17"}}"#)
        let (_, farAlerts) = PlainEvaluator(rules: rules).process(EngineState(), events: [far], now: time(5))
        #expect(farAlerts.first?.events.first?.location == "S\u{E3}o Paulo \u{6771}, BR")
        #expect(farAlerts.first?.events.first?.device == "iOS 17")
        let json = AlertJSON.line(alerts[0])
        for key in ["\"id\":", "\"rule\":{", "\"level\":\"medium\"", "\"group\":{\"ipAddress\":\"198.51.100.4\"}", "\"eventCount\":1", "\"events\":[\"l1\"]", "\"firstEventTime\":\"2024-05-01T10:00:00.123Z\"", "\"detectedAt\":\"2024-05-01T10:05:00.000Z\"", "\"late\":false"] {
            #expect(json.contains(key), "\(key) in \(json)")
        }
    }
}
