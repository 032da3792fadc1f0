import Foundation
import TophhieTestSupport
import Testing
import TophhieAgent
import TophhieAuth
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// The fast engine against the plain evaluator on generated rules and sign-in streams: the
/// same alerts (ids, events, times, counts, summaries) and late arrivals, poll after poll, and
/// for one replay-like pass taken in batches with checkpoints; and the plain evaluator fed the
/// live agent's sign-ins against the same fed replay's.
///
/// Seeds are fixed, so a run is repeatable; `TOPHHIE_DIFFERENTIAL_SEED=N` runs the cases from
/// seed N instead (and `TOPHHIE_DIFFERENTIAL_CASES` how many), to explore further.
@Suite struct ReferenceDifferentialTests {
    static let firstSeed: UInt64 = ProcessInfo.processInfo.environment["TOPHHIE_DIFFERENTIAL_SEED"].flatMap { UInt64($0) } ?? 20_261_205
    static let cases: Int = ProcessInfo.processInfo.environment["TOPHHIE_DIFFERENTIAL_CASES"].flatMap { Int($0) } ?? 150

    @Test func pollAfterPollTheEngineGivesTheReferencesAlerts() throws {
        var rulesLoaded = 0, rulesWritten = 0, alerts = 0, decoded = 0, generatedEvents = 0
        for seed in ReferenceDifferentialTests.firstSeed..<ReferenceDifferentialTests.firstSeed + UInt64(ReferenceDifferentialTests.cases) {
            let generated = GeneratedCase(seed: seed)
            let rules = loadRules(generated.yaml)
            rulesLoaded += rules.ruleCount
            rulesWritten += generated.yaml.components(separatedBy: "\n---\n").count
            let engine = Engine(rules: rules, settings: generated.settings)
            let reference = PlainEvaluator(rules: rules, settings: generated.settings)
            var fastState = EngineState(), referenceState = EngineState(), liveState = EngineState(), decodableState = EngineState()
            for (number, poll) in generated.polls.enumerated() {
                let learning = number == 0 ? generated.learnUntil : nil
                let fast = engine.evaluate(fastState, events: poll.events, now: poll.at, alertOnlyAfter: learning)
                let expected = reference.evaluate(referenceState, events: poll.events, now: poll.at, alertOnlyAfter: learning)
                // The records the live agent decodes (it skips, and names, the others), as its own
                // sign-ins and as replay's: the same outcome.
                let decodable = poll.events.filter { (try? TophhieSignInEvent(json: $0.json)) != nil }
                decoded += decodable.count
                generatedEvents += poll.events.count
                let live = reference.evaluate(liveState, events: try decodable.map { try TophhieSignInEvent(json: $0.json) }, now: poll.at, alertOnlyAfter: learning)
                let asReplay = reference.evaluate(decodableState, events: decodable, now: poll.at, alertOnlyAfter: learning)
                alerts += expected.alerts.count
                if let difference = ReferenceDifferentialTests.difference(fast, expected) {
                    Issue.record("seed \(seed), poll \(number + 1) of \(generated.polls.count): \(difference)\nrules:\n\(generated.yaml)")
                    break
                }
                if let difference = ReferenceDifferentialTests.difference(live, asReplay) {
                    Issue.record("seed \(seed), poll \(number + 1), live sign-ins: \(difference)\nrules:\n\(generated.yaml)")
                    break
                }
                fastState = fast.state
                referenceState = expected.state
                liveState = live.state
                decodableState = asReplay.state
            }
        }
        // The generator must make rules that load and alert, and sign-ins the agent decodes, or
        // the comparison proves little.
        #expect(decoded * 2 >= generatedEvents, "only \(decoded) of \(generatedEvents) generated sign-ins decode as the agent's")
        #expect(rulesLoaded * 10 >= rulesWritten * 9, "only \(rulesLoaded) of \(rulesWritten) generated rules loaded")
        #expect(alerts >= ReferenceDifferentialTests.cases * 5, "only \(alerts) alerts in \(ReferenceDifferentialTests.cases) cases")
    }

    @Test(arguments: [false, true])
    func aPassInBatchesWithCheckpointsGivesTheReferencesAlertsForTheWholeFile(readIntoSlots: Bool) throws {
        var passes = 0
        for seed in ReferenceDifferentialTests.firstSeed..<ReferenceDifferentialTests.firstSeed + UInt64(ReferenceDifferentialTests.cases) {
            let generated = GeneratedCase(seed: seed)
            let rules = loadRules(generated.yaml)
            let engine = Engine(rules: rules, settings: generated.settings)
            // As replay reads a file: in time order (a record's versions in the file's order),
            // each record read into the engine's slots from its bytes when the rules allow.
            var events: [any RuleEvent] = generated.fileEvents.enumerated().sorted {
                ($0.element.eventTime, $0.element.eventID, $0.offset) < ($1.element.eventTime, $1.element.eventID, $1.offset)
            }.map(\.element)
            if readIntoSlots {
                guard let layout = engine.eventLayout else { continue }
                events = try events.map { try layout.event(Array(($0 as! JSONRuleEvent).json.canonicalData())) }
            }
            guard let now = events.last?.eventTime else { continue }
            passes += 1
            let expected = PlainEvaluator(rules: rules, settings: generated.settings).evaluate(EngineState(), events: events, now: now)
            // Batches as replay cuts them (sign-ins sharing a time stay in one), part of each
            // matched ahead as the reading thread would, the rest by the engine.
            var random = SeededGenerator(seed: seed)
            var pass = engine.beginPass(EngineState(), now: now)
            // The alerts ready at each checkpoint, taken as a replay writes them: with the rest
            // from the end of the pass, the reference's alerts in the reference's order.
            var taken: [Alert] = []
            var rest = events[...]
            while !rest.isEmpty {
                var cut = min(rest.count, Int.random(in: 1...20, using: &random))
                while cut < rest.count, rest[rest.startIndex + cut].eventTime == rest[rest.startIndex + cut - 1].eventTime { cut += 1 }
                let batch = Array(rest.prefix(cut))
                rest = rest.dropFirst(cut)
                if readIntoSlots {
                    let prepared = engine.prepareLater(batch)
                    var asked = Int.random(in: 0...3, using: &random)
                    engine.workAhead(prepared) { asked -= 1; return asked < 0 }
                    pass.add(prepared: prepared)
                } else {
                    pass.add(batch)
                }
                pass.checkpoint(batch.last!.eventTime)
                taken += pass.takeAlerts()
            }
            var outcome = pass.finish()
            outcome.alerts = taken + outcome.alerts
            if let difference = ReferenceDifferentialTests.difference(outcome, expected) {
                Issue.record("seed \(seed), one pass in batches\(readIntoSlots ? " read into slots" : ""): \(difference)\nrules:\n\(generated.yaml)")
            }
        }
        // Rules with a keyword search read every string, not slots.
        #expect(passes * 2 >= ReferenceDifferentialTests.cases, "only \(passes) of \(ReferenceDifferentialTests.cases) cases were passed")
    }

    /// What differs between two outcomes' alerts and late arrivals, or nil.
    static func difference(_ fast: EngineOutcome, _ expected: EngineOutcome) -> String? {
        if fast.lateArrivals != expected.lateArrivals {
            return "late arrivals \(String(describing: fast.lateArrivals)), the reference's \(String(describing: expected.lateArrivals))"
        }
        guard fast.alerts != expected.alerts else { return nil }
        let fastLines = fast.alerts.map(AlertJSON.line), expectedLines = expected.alerts.map(AlertJSON.line)
        let onlyFast = fastLines.filter { !expectedLines.contains($0) }, onlyExpected = expectedLines.filter { !fastLines.contains($0) }
        return "\(fast.alerts.count) alerts, the reference's \(expected.alerts.count)\nonly the engine's:\n\(onlyFast.joined(separator: "\n"))\nonly the reference's:\n\(onlyExpected.joined(separator: "\n"))"
    }
}
