import Foundation
import Testing
import TophhieAuth
@testable import TophhieAgent

/// A clock whose waits return at once but park until told, so a test can act mid-sleep.
final class SteppingClock: TophhieClock, @unchecked Sendable {
    private let manual: ManualClock
    init(_ start: Date) { manual = ManualClock(start) }
    func now() -> Date { manual.now() }
    func sleep(seconds: Double) async throws {
        try await manual.sleep(seconds: seconds)
        // Long waits (the poll interval) park so the test can stop or reload the loop.
        if seconds >= 60 { try await Task.sleep(nanoseconds: 10_000_000_000) }
    }
}

@Suite struct AgentLoopTests {
    func setup(_ harness: AgentHarness, rules: String) throws -> AgentSetup {
        let rulesFile = harness.stateDirectory.appendingPathComponent("rules.yml")
        try FileManager.default.createDirectory(at: harness.stateDirectory, withIntermediateDirectories: true)
        try rules.write(to: rulesFile, atomically: true, encoding: .utf8)
        var configuration = AgentConfiguration(stateDirectory: harness.stateDirectory)
        configuration.tenant = harness.endpoints.tenantID
        configuration.clientID = harness.endpoints.clientID
        configuration.authority = harness.endpoints.authority
        configuration.graphBaseURL = harness.endpoints.graphBaseURL
        configuration.rulePaths = [rulesFile.path]
        configuration.notifiers = [NotifierConfiguration(name: "quiet", type: "stdout", minimumLevel: .critical)]
        return try AgentSetup.build(configuration, environment: .init(variables: [:], write: { _ in }, clock: harness.clock))
    }

    @Test func stopFinishesTheCycleAndReturns() async throws {
        let harness = try await AgentHarness.start()
        defer { Task { await harness.stop() } }
        let built = try setup(harness, rules: AgentHarness.rulesText)
        let lines = LineLog()
        let loop = AgentLoop(setup: built, rebuild: { built }, clock: SteppingClock(harness.clock.now()), random: { 0 }, log: lines.add)
        let running = Task { try await loop.run() }
        while await loop.cycles < 1 { try await Task.sleep(nanoseconds: 5_000_000) }
        await loop.stop()
        try await running.value
        #expect(await loop.cycles == 1)
        #expect(lines.all.last == "stopped after 1 cycle")
    }

    @Test func cancellingRunEndsTheWaitAtOnce() async throws {
        let harness = try await AgentHarness.start()
        defer { Task { await harness.stop() } }
        let built = try setup(harness, rules: AgentHarness.rulesText)
        let loop = AgentLoop(setup: built, rebuild: { built }, clock: SteppingClock(harness.clock.now()), random: { 0 }, log: { _ in })
        let running = Task { try await loop.run() }
        while await loop.cycles < 1 { try await Task.sleep(nanoseconds: 5_000_000) }
        running.cancel()
        // The stepping clock parks for 10 s per interval; returning well before that shows the
        // cancellation reached the wait.
        let finished = Task { try await running.value; return true }
        let outcome = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await finished.value }
            group.addTask { try await Task.sleep(nanoseconds: 3_000_000_000); return false }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        #expect(outcome, "run() did not return after cancellation")
    }

    @Test func aBrokenReloadKeepsTheOldRulesAndSaysSo() async throws {
        let harness = try await AgentHarness.start()
        defer { Task { await harness.stop() } }
        let built = try setup(harness, rules: AgentHarness.rulesText)
        let lines = LineLog()
        let loop = AgentLoop(setup: built, rebuild: {
            throw ConfigurationError("the rules have 1 error:\n  rules.yml:3:5: error: unknown condition", file: "config.yml")
        }, clock: SteppingClock(harness.clock.now()), random: { 0 }, log: lines.add)
        let running = Task { try await loop.run() }
        while await loop.cycles < 1 { try await Task.sleep(nanoseconds: 5_000_000) }
        await loop.reload()
        while await loop.cycles < 2 { try await Task.sleep(nanoseconds: 5_000_000) }
        await loop.stop()
        try await running.value
        #expect(lines.all.contains { $0.hasPrefix("reload failed, keeping the previous configuration and rules: config.yml: error: the rules have 1 error") })
        let reports = await loop.reports
        #expect(reports.count == 2)
        #expect(reports.allSatisfy { $0.outcome == .succeeded }, "polling went on with the old rules")
    }
}

final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
