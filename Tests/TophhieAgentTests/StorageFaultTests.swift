import Foundation
import Testing
import TophhieAuth
import TophhieRules
import TophhieSimulator
import TophhieSystem
@testable import TophhieAgent

/// A state directory that cannot be written is told where it can be heard: straight to the
/// notifiers (not through the outbox it cannot write), every poll or at most hourly with a
/// runtime-directory marker; the poll fails with `StateUnwritable` (exit 2), nothing queued is
/// lost, and the poll that can write again says so. Faults are injected in the durable-file layer.
@Suite(.timeLimit(.minutes(20))) struct StorageFaultTests {
    static let unwritable = "tophhie.notice.state-unwritable"

    static func runExpectingFault(_ cycle: PollCycle, now: Date) async -> StateUnwritable? {
        do {
            _ = try await cycle.run(now: now)
            return nil
        } catch let error as StateUnwritable {
            return error
        } catch {
            Issue.record("expected StateUnwritable, got \(error)")
            return nil
        }
    }

    @Test(arguments: [FileError.noSpace, FileError.readOnly, FileError.accessDenied])
    func aStorageFaultIsToldStraightToTheNotifiersEveryPollAndNothingIsLost(_ code: Int32) async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            // Queued before the fault, waiting for a receiver that refuses once.
            await harness.recorder.failNext([NotifierError.transient("HTTP 503")])
            try await cycle.dispatch.append([NotifierTestAlerts.alert(id: "queued-before")])
            _ = await cycle.dispatch.deliverPending()
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))

            DurableFile.Faults.inject(code, under: harness.stateDirectory.path)
            defer { DurableFile.Faults.clear(under: harness.stateDirectory.path) }
            var told: [Alert] = []
            for _ in 0..<2 {
                harness.clock.advance(by: 300)
                let before = await harness.recorder.delivered.count
                let fault = await Self.runExpectingFault(cycle, now: harness.clock.now())
                #expect(fault?.fault.code == code)
                #expect(fault?.directoryGone == false)
                told += await harness.recorder.delivered.dropFirst(before)
            }
            #expect(told.map(\.rule.id) == [Self.unwritable, Self.unwritable], "without a runtime directory: every poll")
            #expect(told.first?.summary.hasPrefix("Monitoring has stopped: cannot write the state directory \(harness.stateDirectory.path) (cannot ") == true, "\(told.first?.summary ?? "")")
            #expect(told.first?.summary.contains(systemErrorMessage(code)) == true)
            #expect(told.first?.summary.contains("alerts already queued are kept") == true)

            DurableFile.Faults.clear(under: harness.stateDirectory.path)
            harness.clock.advance(by: 300)
            let recovered = try await cycle.run(now: harness.clock.now())
            #expect(recovered.alerts.map(\.rule.id) == ["test-burst"], "the burst read while the disk failed is alerted, once")
            let ids = await harness.recorder.deliveredIDs
            #expect(ids.filter { $0 == "queued-before" }.count == 1, "what was queued before the fault is delivered, once")
            #expect(ids.contains(recovered.alerts[0].id))
        }
    }

    @Test func withARuntimeDirectoryTheFaultIsToldAtMostHourlyAndItsEndToo() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-runtime-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: runtime) }
            var cycle = try harness.cycle()
            cycle.runtimeDirectory = runtime
            _ = try await cycle.run(now: harness.clock.now())
            DurableFile.Faults.inject(FileError.noSpace, under: harness.stateDirectory.path)
            defer { DurableFile.Faults.clear(under: harness.stateDirectory.path) }
            var toldAt: [Int] = []
            for poll in 1...15 { // 75 minutes of 5-minute polls
                harness.clock.advance(by: 300)
                let before = await harness.recorder.delivered.count
                _ = await Self.runExpectingFault(cycle, now: harness.clock.now())
                if await harness.recorder.delivered.dropFirst(before).contains(where: { $0.rule.id == Self.unwritable }) { toldAt.append(poll) }
            }
            #expect(toldAt == [1, 13], "once, then again after an hour")
            DurableFile.Faults.clear(under: harness.stateDirectory.path)
            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.state-writable"])
            harness.clock.advance(by: 300)
            #expect(try await cycle.run(now: harness.clock.now()).notices.isEmpty, "told once")
        }
    }

    @Test func aStateDirectoryRemovedUnderTheAgentIsToldAndNotRecreated() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            try FileManager.default.removeItem(at: harness.stateDirectory)
            harness.clock.advance(by: 300)
            let fault = await Self.runExpectingFault(cycle, now: harness.clock.now())
            #expect(fault?.directoryGone == true)
            #expect(fault?.description.hasPrefix("the state directory \(harness.stateDirectory.path) was removed while the agent ran; it is not recreated") == true)
            #expect(await harness.recorder.delivered.map(\.rule.id) == [Self.unwritable])
            #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory.path))
        }
    }
}
