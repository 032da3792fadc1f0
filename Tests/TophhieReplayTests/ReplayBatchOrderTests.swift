import Foundation
import TophhieTestSupport
import Testing
import TophhieRules
@testable import TophhieRulesFast
@testable import TophhieCLI
@testable import TophhieReplay

/// A run's sign-ins reach the engine in (time, id, place) order, taken from the end of the run;
/// runs already in that order or in its reverse are checked and kept or turned round instead of
/// sorted, and must come out as the sort would put them.
@Suite struct ReplayBatchOrderTests {
    @Test func runsComeOutInTheEngineOrderWhateverOrderTheyWereIn() throws {
        let layout = EventLayout(slots: [])
        func signIn(_ id: String, _ second: Int, at offset: Int) throws -> (event: SlotEvent, offset: Int) {
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_714_557_600 + Double(second)))
            return (try layout.event(Array(#"{"id":"\#(id)","createdDateTime":"\#(time)"}"#.utf8)), offset)
        }
        func key(_ found: [(event: SlotEvent, offset: Int)]) -> [String] { found.map { "\($0.event.eventID)@\($0.offset)" } }
        func sorted(_ found: [(event: SlotEvent, offset: Int)]) -> [String] {
            key(found.sorted { ($0.event.eventTime, $0.event.eventID, $0.offset) < ($1.event.eventTime, $1.event.eventID, $1.offset) })
        }
        let ascending = try (0..<9).map { try signIn("s\($0)", $0 * 10, at: $0 * 100) }
        let runs: [[(event: SlotEvent, offset: Int)]] = [
            [], [ascending[0]], ascending, Array(ascending.reversed()),
            // One out of place, at either end or in the middle.
            Array(ascending.dropFirst()) + [ascending[0]], [ascending[8]] + ascending.dropLast(), Array(ascending[0..<4] + [ascending[5], ascending[4]] + ascending[6...]),
            // Ties in time broken by id, then by place (a repeated id).
            try [signIn("b", 5, at: 0), signIn("a", 5, at: 100), signIn("a", 5, at: 50), signIn("c", 1, at: 200)],
            try [signIn("a", 5, at: 100), signIn("a", 5, at: 0)],
            try [signIn("c", 9, at: 0), signIn("b", 5, at: 100), signIn("a", 5, at: 200)],
        ]
        for run in runs {
            var ordered = run
            ReplayBatch.putInEngineOrderFromTheEnd(&ordered)
            #expect(key(ordered.reversed()) == sorted(run), "\(key(run))")
        }
    }
}
