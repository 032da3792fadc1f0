import Foundation
import TophhieRules

/// Alerts for notifier and outbox tests.
enum NotifierTestAlerts {
    static let baseTime = Date(timeIntervalSince1970: 1_764_669_600) // 2025-12-02T10:00:00Z

    static func alert(id: String = "a-1", level: AlertLevel = .high, ruleID: String = "failed-burst",
                      kind: AlertKind = .detection, device: String? = "laptop", summary: String = "5 failed sign-ins from 203.0.113.9 in 10m",
                      late: Bool = false) -> Alert {
        let events = (0..<2).map { i in
            AlertEvent(id: "ev-\(i)", time: baseTime.addingTimeInterval(Double(i) * 60 + 0.25), errorCode: 50126,
                       app: "Azure Portal", ipAddress: "203.0.113.9", location: "Paris, FR", device: i == 0 ? device : nil)
        }
        return Alert(id: id, kind: kind,
                     rule: AlertRule(id: ruleID, title: "Failed sign-in burst", level: level, tags: ["attack.credential-access", "attack.t1110"],
                                     author: "Tophhie", description: "Many failures in a short time"),
                     level: level, summary: summary,
                     group: [AlertGroupValue(field: "ipAddress", value: "203.0.113.9")],
                     events: events, firstEventTime: events[0].time, lastEventTime: events[1].time,
                     detectedAt: baseTime.addingTimeInterval(3 * 3600 + 300), late: late, lateBySeconds: late ? 10_800 : nil)
    }
}

/// Collects lines written by a notifier's sink.
final class LineSink: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    func write(_ text: String) {
        lock.lock(); defer { lock.unlock() }
        storage.append(text)
    }

    var lines: [String] {
        lock.lock(); defer { lock.unlock() }
        return storage
    }
}
