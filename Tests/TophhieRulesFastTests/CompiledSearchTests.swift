import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// The matcher the engine uses (`DetectionMatcher` over `CompiledSearch` and `FieldMatchPlan`)
/// must answer as the rule's own `Detection.matches` does, for every rule of the pack and of
/// SigmaHQ, on events built from the very values the rules test.
@Suite(.timeLimit(.minutes(20))) struct CompiledSearchTests {
    @Test func theCompiledMatcherAgreesWithTheDetectionOnEveryRule() throws {
        let set = RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules, RepoPaths.sigma]))
        #expect(set.detections.count > 25)
        // Every (path, value) an exact or wildcard text entry tests, its wildcards taken out.
        var values: [([String], JSONValue)] = []
        func collect(_ search: SearchIdentifier) {
            switch search {
            case .allOf(let conditions):
                for condition in conditions {
                    for matcher in condition.matchers {
                        guard case .text(let pattern, let number) = matcher else { continue }
                        let text: String
                        switch pattern.shape {
                        case .exact, .prefix, .suffix, .contains: text = pattern.literal
                        case .general: continue
                        }
                        values.append((condition.components, number.map { .int(Int64($0)) } ?? .string(text)))
                    }
                }
            case .anyOf(let alternatives): alternatives.forEach(collect)
            case .keywords: break
            }
        }
        for rule in set.detections { rule.detection.ordered.forEach(collect) }
        #expect(values.count > 40)

        var generator = SeededGenerator(seed: 11)
        var matched = 0, compared = 0
        // Numbered as the engine numbers them: an entry rules share is tested once an event.
        let numbering = EntryNumbering()
        let matchers = set.detections.map { DetectionMatcher($0.detection, numbering: numbering) }
        let entries = set.detections.reduce(0) { $0 + Self.entryCount($1.detection.ordered) }
        #expect(numbering.count < entries, "rules share entries, so the agreement covers shared answers (\(numbering.count) of \(entries))")
        for n in 0..<400 {
            var object: [String: JSONValue] = ["id": .string("e\(n)"), "createdDateTime": .string("2024-05-01T10:00:00Z")]
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                let (path, value) = values[Int.random(in: 0..<values.count, using: &generator)]
                object = Self.setting(object, path[...], value)
            }
            matched += try Self.agreements(set.detections, matchers, on: SignInEvents.event(.object(object)), "\(object)")
            compared += matchers.count
        }
        #expect(matched > 100, "the events match rules, so the agreement means something (\(matched) of \(compared))")
    }

    /// An entry of exact numbers answers a number in the event by the numbers alone: what
    /// walking its tests answers, for every such entry of the pack and of SigmaHQ, on numbers
    /// equal and unequal, as integers, doubles and text, and on values of other kinds.
    @Test func exactNumbersAnswerAsTheirTestsDo() throws {
        let set = RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules, RepoPaths.sigma]))
        var plans: [FieldCondition] = []
        func collect(_ search: SearchIdentifier) {
            switch search {
            case .allOf(let conditions): plans += conditions.filter { FieldMatchPlan($0).exactNumbers != nil }
            case .anyOf(let alternatives): alternatives.forEach(collect)
            case .keywords: break
            }
        }
        for rule in set.detections { rule.detection.ordered.forEach(collect) }
        #expect(plans.count >= 10, "the pack's error codes are entries of exact numbers (\(plans.count))")
        var matched = 0
        for condition in plans {
            let numbers = try #require(FieldMatchPlan(condition).exactNumbers)
            var values: [JSONValue] = [.int(0), .int(-1), .double(0.5), .string("x"), .null, .bool(true), .array([]), .object([:])]
            for number in numbers {
                values += [.double(number), .double(number + 0.5), .string(String(Int64(number))), .string("\(number)")]
                if let integer = Int64(exactly: number) { values += [.int(integer), .int(integer + 1), .int(integer - 1)] }
            }
            for value in values {
                let object = Self.setting(["id": .string("e"), "createdDateTime": .string("2024-05-01T10:00:00Z")], condition.components[...], value)
                let event = PathEvent(event: try SignInEvents.event(.object(object)))
                let texts = SlotTexts()
                texts.next()
                let answer = FieldMatchPlan(condition).matchesEach(event, texts)
                #expect(answer == FieldMatchPlan(condition).matchesByTests(event.field(slot: FieldSlot.intern(condition.components)), event, texts), "\(condition.components) against \(value)")
                if answer { matched += 1 }
            }
        }
        #expect(matched >= plans.count, "each entry's own numbers match (\(matched))")
        // And by hand: a list of codes, and a code written as text in the rule (tests only).
        let rules = RuleLoader.load([RuleSource(path: "codes.yml", text: """
            title: Codes
            id: codes
            logsource: {product: azure, service: signinlogs}
            detection:
                numbers: {status.errorCode: [50126, 50053]}
                text: {status.errorCode: '50053'}
                condition: numbers
            level: low
            """)])
        let ordered = try #require(rules.detections.first?.detection.ordered)
        guard case .allOf(let numbers) = ordered[0], case .allOf(let text) = ordered[1] else { Issue.record("two entries"); return }
        #expect(FieldMatchPlan(numbers[0]).exactNumbers == [50126, 50053])
        #expect(FieldMatchPlan(text[0]).exactNumbers == nil)
        for (value, expected) in [(JSONValue.int(50053), true), (.int(0), false), (.double(50126), true), (.double(50126.5), false), (.string("50053"), true), (.string("x"), false)] {
            let event = PathEvent(event: try SignInEvents.event(.object(["id": .string("e"), "createdDateTime": .string("2024-05-01T10:00:00Z"), "status": .object(["errorCode": value])])))
            let texts = SlotTexts()
            texts.next()
            #expect(FieldMatchPlan(numbers[0]).matchesEach(event, texts) == expected, "\(value)")
        }
    }

    static func entryCount(_ searches: [SearchIdentifier]) -> Int {
        searches.reduce(0) { count, search in
            switch search {
            case .allOf(let conditions): return count + conditions.count
            case .anyOf(let alternatives): return count + entryCount(alternatives)
            case .keywords: return count
            }
        }
    }

    /// Entries that look alike but test differently are not shared: one rule's answer must not
    /// stand for another's.
    @Test func entriesThatTestDifferentlyAreNotShared() throws {
        let text = """
            title: Any case
            id: any-case
            logsource: {product: azure, service: signinlogs}
            detection:
                selection:
                    appDisplayName: 'Azure Portal'
                condition: selection
            level: low
            ---
            title: Exact case
            id: exact-case
            logsource: {product: azure, service: signinlogs}
            detection:
                selection:
                    appDisplayName|cased: 'Azure Portal'
                condition: selection
            level: low
            ---
            title: Any case again
            id: any-case-again
            logsource: {product: azure, service: signinlogs}
            detection:
                selection:
                    appDisplayName: 'azure portal'
                condition: selection
            level: low
            ---
            title: Not
            id: not-it
            logsource: {product: azure, service: signinlogs}
            detection:
                selection:
                    appDisplayName: 'Azure Portal'
                condition: not selection
            level: low
            """
        let set = RuleLoader.load([RuleSource(path: "shared.yml", text: text)])
        #expect(!set.hasErrors, "\(set.diagnostics)")
        let event = try SignInEvents.event(.object(["id": .string("e1"), "createdDateTime": .string("2024-05-01T10:00:00Z"),
                                                   "appDisplayName": .string("AZURE PORTAL")]))
        let matches = DetectionMatches(rules: set).matches([event]).map(\.ruleID)
        #expect(matches == ["any-case", "any-case-again"])
        let numbering = EntryNumbering()
        _ = set.detections.map { DetectionMatcher($0.detection, numbering: numbering) }
        // 'Azure Portal' and 'azure portal' fold to one pattern; the cased one stands apart.
        #expect(numbering.count == 2)
    }

    /// Expects each matcher to answer `event` as its rule's detection does; how many rules hold.
    static func agreements(_ rules: [DetectionRule], _ matchers: [DetectionMatcher], on event: any RuleEvent, _ label: String) -> Int {
        let texts = SlotTexts()
        texts.next()
        var held = 0
        for (rule, matcher) in zip(rules, matchers) {
            let expected = rule.detection.matches(event)
            #expect(matcher.matches(fastEvent(event), texts) == expected, "\(rule.metadata.id) on \(label)")
            if expected { held += 1 }
        }
        return held
    }

    static func setting(_ object: [String: JSONValue], _ path: ArraySlice<String>, _ value: JSONValue) -> [String: JSONValue] {
        guard let first = path.first else { return object }
        var object = object
        if path.count == 1 {
            object[first] = value
        } else {
            guard case .object(let inner) = object[first] ?? .object([:]) else { return object }
            object[first] = .object(setting(inner, path.dropFirst(), value))
        }
        return object
    }
}

/// The engine's matcher walks a condition laid out flat (`DetectionMatcher`); it must answer as
/// the condition tree does for every combination of its searches' results.
@Suite struct FlatConditionTests {
    @Test func everyConditionAnswersAsItsTreeForEveryCombinationOfSearches() throws {
        let conditions = [
            "sel_a and not (sel_b or sel_c)", "1 of sel_*", "all of sel_*", "2 of sel_*", "3 of sel_*",
            "not 1 of sel_* or sel_d", "(sel_a or sel_b) and (sel_c or not sel_d)", "not not sel_a",
            "sel_a and sel_b and sel_c and sel_d", "sel_a or sel_b or not sel_c", "not (sel_a and 2 of sel_*)",
        ]
        let apps = ["a", "b", "c", "d"]
        var text = ""
        for (n, condition) in conditions.enumerated() {
            text += """
                ---
                title: Condition \(n)
                id: condition-\(n)
                logsource: {product: azure, service: signinlogs}
                detection:
                    sel_a: {appDisplayName: 'a'}
                    sel_b: {clientAppUsed: 'b'}
                    sel_c: {ipAddress: 'c'}
                    sel_d: {userId: 'd'}
                    condition: \(condition)
                level: low

                """
        }
        let set = RuleLoader.load([RuleSource(path: "conditions.yml", text: text)])
        #expect(!set.hasErrors, "\(set.diagnostics)")
        #expect(set.detections.count == conditions.count)
        let matchers = set.detections.map { DetectionMatcher($0.detection) }
        var held = 0
        for combination in 0..<16 {
            var object: [String: JSONValue] = ["id": .string("e\(combination)"), "createdDateTime": .string("2024-05-01T10:00:00Z")]
            for (bit, (field, value)) in zip(["appDisplayName", "clientAppUsed", "ipAddress", "userId"], apps).enumerated() {
                object[field] = .string(combination & (1 << bit) != 0 ? value : "other")
            }
            held += try CompiledSearchTests.agreements(set.detections, matchers, on: SignInEvents.event(.object(object)), "searches \(combination)")
        }
        #expect(held > 40 && held < 16 * conditions.count - 40, "conditions both hold and fail (\(held))")
    }
}
