import Foundation
import Testing
import TophhieSystem
import TophhieRules
@testable import TophhieAgent

/// A fresh state directory per test, removed afterwards.
final class TemporaryStateDirectory {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tw-outbox-\(UUID().uuidString)").path
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite(.timeLimit(.minutes(20))) struct OutboxStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_764_680_000.125)

    @Test func appendListInOrderAndDedupe() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0))
        #expect(try await store.append(NotifierTestAlerts.alert(id: "a-2"), at: Self.t0))
        #expect(try await !store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0))
        #expect(try await store.append(contentsOf: [NotifierTestAlerts.alert(id: "a-3"), NotifierTestAlerts.alert(id: "a-2"), NotifierTestAlerts.alert(id: "a-3")], at: Self.t0) == 1)
        #expect(try await store.pendingEntries().map(\.alert.id) == ["a-1", "a-2", "a-3"])
        let lines = try String(contentsOfFile: "\(dir.path)/outbox/hook.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
    }

    @Test func alertsRoundTripExactly() async throws {
        let dir = TemporaryStateDirectory()
        let alert = NotifierTestAlerts.alert(device: "dev\u{1b}\n\u{2028}ünï", late: true)
        try await OutboxStore(stateDirectory: dir.path, notifier: "hook").append(alert, at: Self.t0)
        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        let entry = try #require(try await reopened.pendingEntries().first)
        #expect(entry.alert == alert)
        #expect(entry.appendedAt == Self.t0)
    }

    @Test func filesArePrivate() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0)
        try await store.append(NotifierTestAlerts.alert(id: "a-2"), at: Self.t0)
        try await store.markDelivered("a-1", at: Self.t0)
        try await store.markDeadLettered("a-2", reason: "HTTP 404", at: Self.t0)
        #expect(DurableFile.permissions(of: "\(dir.path)/outbox") == 0o700)
        for file in ["hook.jsonl", "hook.settled.jsonl", "hook.dead.jsonl"] {
            #expect(DurableFile.permissions(of: "\(dir.path)/outbox/\(file)") == 0o600, "\(file)")
        }
    }

    @Test func deliveredIsNeverQueuedAgainEvenAfterRestart() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(contentsOf: ["a-1", "a-2", "a-3"].map { NotifierTestAlerts.alert(id: $0) }, at: Self.t0)
        try await store.markDelivered("a-2", at: Self.t0)
        #expect(try await store.pendingEntries().map(\.alert.id) == ["a-1", "a-3"])
        #expect(try await !store.append(NotifierTestAlerts.alert(id: "a-2"), at: Self.t0))

        let restarted = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await restarted.pendingEntries().map(\.alert.id) == ["a-1", "a-3"])
        #expect(await restarted.isSettled("a-2"))
        #expect(try await restarted.append(contentsOf: ["a-1", "a-2", "a-3", "a-4"].map { NotifierTestAlerts.alert(id: $0) }, at: Self.t0) == 1)
        #expect(try await restarted.pendingEntries().map(\.alert.id) == ["a-1", "a-3", "a-4"])
        #expect(await restarted.recoveryNotes.isEmpty)
    }

    @Test func tornLastLineIsDroppedReportedAndRepaired() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(contentsOf: [NotifierTestAlerts.alert(id: "a-1"), NotifierTestAlerts.alert(id: "a-2")], at: Self.t0)
        // A crash mid-append: half of a third line, no newline.
        let queue = "\(dir.path)/outbox/hook.jsonl"
        let third = try OutboxCoding.line(OutboxEntry(alert: NotifierTestAlerts.alert(id: "a-3"), appendedAt: Self.t0))
        let handle = try #require(FileHandle(forWritingAtPath: queue))
        handle.seekToEndOfFile()
        handle.write(Data(third.prefix(third.count / 2)))
        handle.closeFile()
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: queue)[.size] as? Int)

        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await reopened.pendingEntries().map(\.alert.id) == ["a-1", "a-2"])
        let notes = await reopened.recoveryNotes
        #expect(notes == ["\(queue):3: dropped a torn last line (\(third.count / 2) bytes, an append cut short by a crash)"])
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: queue)[.size] as? Int)
        #expect(sizeAfter == sizeBefore - third.count / 2)

        // The alert whose append was torn is appended again by the replayed poll, cleanly.
        #expect(try await reopened.append(NotifierTestAlerts.alert(id: "a-3"), at: Self.t0))
        let again = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await again.pendingEntries().map(\.alert.id) == ["a-1", "a-2", "a-3"])
        #expect(await again.recoveryNotes.isEmpty)
    }

    @Test func tornSettledLogKeepsTheAlertPending() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0)
        try await store.markDelivered("a-1", at: Self.t0)
        let settled = "\(dir.path)/outbox/hook.settled.jsonl"
        let text = try String(contentsOfFile: settled, encoding: .utf8)
        try String(text.dropLast(5)).write(toFile: settled, atomically: false, encoding: .utf8)
        // The marker did not make it to disk whole: the alert is delivered again (at least once).
        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await reopened.pendingEntries().map(\.alert.id) == ["a-1"])
        #expect(await reopened.recoveryNotes.count == 1)
    }

    @Test func unreadableMiddleLineIsSkippedAndReported() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0)
        let queue = "\(dir.path)/outbox/hook.jsonl"
        try DurableFile.append(Array("{not json}\n".utf8), to: queue)
        try await store.append(NotifierTestAlerts.alert(id: "a-2"), at: Self.t0)
        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await reopened.pendingEntries().map(\.alert.id) == ["a-1", "a-2"])
        #expect(await reopened.recoveryNotes == ["\(queue):2: skipped an unreadable line (10 bytes), moved to \(queue).damaged"])
        #expect(try String(contentsOfFile: queue + ".damaged", encoding: .utf8) == "{not json}\n", "kept aside byte for byte")
        let third = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await third.pendingEntries().map(\.alert.id) == ["a-1", "a-2"])
        #expect(third.recoveryNotes.isEmpty, "the damage is met once")
        #expect(DurableFile.permissions(of: queue + ".damaged") == 0o600)
    }

    @Test func compactionKeepsOnlyPendingAndRemembersSettled() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook", compactionThreshold: 3)
        try await store.append(contentsOf: (1...5).map { NotifierTestAlerts.alert(id: "a-\($0)") }, at: Self.t0)
        for id in ["a-1", "a-2", "a-3"] { try await store.markDelivered(id, at: Self.t0) }
        let lines = try String(contentsOfFile: "\(dir.path)/outbox/hook.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "compacted to the pending entries")
        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(try await reopened.pendingEntries().map(\.alert.id) == ["a-4", "a-5"])
        #expect(try await reopened.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0) == false)
    }

    @Test func settledIdsAreForgottenAfterRetention() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook", settledRetention: 86_400)
        try await store.append(NotifierTestAlerts.alert(id: "old"), at: Self.t0)
        try await store.markDelivered("old", at: Self.t0)
        try await store.compact(now: Self.t0.addingTimeInterval(2 * 86_400))
        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        #expect(await !reopened.isSettled("old"))
    }

    @Test func deadLettersKeepTheAlertAndReason() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(contentsOf: [NotifierTestAlerts.alert(id: "a-1"), NotifierTestAlerts.alert(id: "a-2")], at: Self.t0)
        try await store.markDeadLettered("a-1", reason: "webhook https://x/…: HTTP 404", at: Self.t0)
        #expect(try await store.pendingEntries().map(\.alert.id) == ["a-2"])
        let dead = try await store.deadLetters()
        #expect(dead.map(\.alert.id) == ["a-1"])
        #expect(dead.first?.reason == "webhook https://x/…: HTTP 404")
        #expect(try await !store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0))
    }

    @Test(arguments: ["", ".hidden", "a/b", "../up", "sp ace", String(repeating: "x", count: 65)])
    func unusableNotifierNames(name: String) {
        let dir = TemporaryStateDirectory()
        #expect(throws: OutboxError.self) { try OutboxStore(stateDirectory: dir.path, notifier: name) }
    }
}
