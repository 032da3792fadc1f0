import Foundation
import TophhieTestSupport
import Testing
import TophhieRules
@testable import TophhieRulesFast
@testable import TophhieCLI
@testable import TophhieReplay

/// Replay writes alerts as they become final; a reader that gives up part way is followed by
/// another, and what the first wrote is not written again.
@Suite struct ReplayAlertWriterTests {
    static func alert(_ n: Int) -> Alert {
        let time = Date(timeIntervalSince1970: 1_714_557_600 + Double(n) * 60)
        return Alert(id: "a\(n)", rule: AlertRule(id: "r", title: "R", level: .low), level: .low, summary: "s", group: [],
                     events: [AlertEvent(id: "e\(n)", time: time)], eventCount: 1, firstEventTime: time, lastEventTime: time, detectedAt: time, late: false)
    }

    final class Lines: @unchecked Sendable {
        let lock = NSLock()
        var ids: [String] = []
        func add(_ id: String) { lock.withLock { ids.append(id) } }
    }

    @Test func aSecondAttemptWritesOnlyWhatTheFirstDidNot() {
        let lines = Lines()
        let writer = ReplayAlertWriter { lines.add($0.id) }
        writer.beginAttempt()
        writer.emit((1...3).map(Self.alert))
        // The first reader gives up; the second gives every alert again, in the same order.
        writer.beginAttempt()
        writer.emit((1...2).map(Self.alert))
        writer.emit((3...5).map(Self.alert))
        #expect(lines.ids == ["a1", "a2", "a3", "a4", "a5"])
        #expect(writer.count == 5)
    }

    @Test func oneAttemptWritesEveryAlertOnce() {
        let lines = Lines()
        let writer = ReplayAlertWriter { lines.add($0.id) }
        writer.beginAttempt()
        writer.emit([])
        writer.emit((1...4).map(Self.alert))
        #expect(lines.ids == ["a1", "a2", "a3", "a4"])
        #expect(writer.count == 4)
    }

    /// Written ahead on the writer's thread, batch after batch and across attempts, the alerts
    /// come out as written here: in order, each once, all of them once `drain` returns; and a
    /// batch written here after some written ahead waits for them.
    @Test func alertsWrittenAheadComeOutInOrderEachOnce() {
        let lines = Lines()
        let writer = ReplayAlertWriter { alert in
            // A slow line: the batches after it are handed over before it is written.
            var sum = 0
            for i in 0..<20_000 { sum &+= i }
            lines.add(alert.id + (sum == -1 ? "!" : ""))
        }
        writer.writingAhead {
            writer.beginAttempt()
            for start in stride(from: 1, through: 40, by: 4) { writer.emitAhead((start..<start + 4).map(Self.alert)) }
        }
        #expect(lines.ids == (1...40).map { "a\($0)" })
        // A reader that gives up after 10 is followed by one that gives all 50 again.
        writer.beginAttempt()
        writer.writingAhead {
            writer.emitAhead((1...10).map(Self.alert))
            writer.emitAhead([])
            writer.emitAhead((11...45).map(Self.alert))
        }
        writer.emit((46...50).map(Self.alert))
        #expect(lines.ids == (1...50).map { "a\($0)" })
        #expect(writer.count == 50)
    }
}
