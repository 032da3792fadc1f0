import Foundation
import Testing
import TophhieAuth
@testable import TophhieAgent

@Suite(.timeLimit(.minutes(20))) struct AgentLoopTests {
    func setup(_ harness: AgentHarness, rules: String, written: LineLog? = nil) throws -> AgentSetup {
        let configuration = try configuration(harness, rules: rules, written: written)
        return try AgentSetup.build(configuration, environment: .init(variables: [:], write: { written?.add($0) }, clock: harness.clock, transport: harness.tenant.transport(clock: harness.clock)))
    }

    /// The harness's tenant, `rules` written beside its state, one stdout notifier.
    func configuration(_ harness: AgentHarness, rules: String, written: LineLog? = nil) throws -> AgentConfiguration {
        let rulesFile = harness.stateDirectory.appendingPathComponent("rules.yml")
        try FileManager.default.createDirectory(at: harness.stateDirectory, withIntermediateDirectories: true)
        try rules.write(to: rulesFile, atomically: true, encoding: .utf8)
        var configuration = AgentConfiguration(stateDirectory: harness.stateDirectory)
        configuration.tenant = harness.endpoints.tenantID
        configuration.clientID = harness.endpoints.clientID
        configuration.authority = harness.endpoints.authority
        configuration.graphBaseURL = harness.endpoints.graphBaseURL
        configuration.rulePaths = [rulesFile.path]
        configuration.notifiers = [NotifierConfiguration(name: "quiet", type: "stdout", minimumLevel: written == nil ? .critical : .informational)]
        return configuration
    }

    @Test func stopFinishesTheCycleAndReturns() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let built = try setup(harness, rules: AgentHarness.rulesText)
            let lines = LineLog()
            let clock = ParkingClock(harness.clock.now())
            let loop = AgentLoop(setup: built, rebuild: { built }, clock: clock, random: { 0 }, log: lines.add)
            let running = Task { try await loop.run() }
            await clock.parked(total: 1) // the first cycle is done; the loop waits for the next
            await loop.stop()
            try await running.value
            #expect(await loop.cycles == 1)
            #expect(lines.all.last == "stopped after 1 cycle")
        }
    }

    @Test func cancellingRunEndsTheWaitAtOnce() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let built = try setup(harness, rules: AgentHarness.rulesText)
            let clock = ParkingClock(harness.clock.now())
            let loop = AgentLoop(setup: built, rebuild: { built }, clock: clock, random: { 0 }, log: { _ in })
            let running = Task { try await loop.run() }
            await clock.parked(total: 1)
            running.cancel()
            // The parked wait never ends by itself: run() returns only if the cancellation reached
            // it (otherwise the suite's time limit names this test).
            try await running.value
            #expect(await loop.cycles == 1)
            #expect(clock.parkedCount == 0)
        }
    }

    @Test func aBrokenReloadKeepsTheOldRulesAndSaysSo() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let built = try setup(harness, rules: AgentHarness.rulesText)
            let lines = LineLog()
            let clock = ParkingClock(harness.clock.now())
            let loop = AgentLoop(setup: built, rebuild: {
                throw ConfigurationError("the rules have 1 error:\n  rules.yml:3:5: error: unknown condition", file: "config.yml")
            }, clock: clock, random: { 0 }, log: lines.add)
            let running = Task { try await loop.run() }
            await clock.parked(total: 1)
            await loop.reload()
            await clock.parked(total: 2) // the second cycle is done; the loop waits again
            await loop.stop()
            try await running.value
            #expect(lines.all.contains { $0.hasPrefix("reload failed, keeping the previous configuration and rules: config.yml: error: the rules have 1 error") })
            let reports = await loop.reports
            #expect(reports.count == 2)
            #expect(reports.allSatisfy { $0.outcome == .succeeded }, "polling went on with the old rules")
        }
    }
}

extension AgentLoopTests {
    /// A refused reload is told through the notifiers, naming where and how many rules still
    /// run, and the reload that succeeds after it is told too; each once.
    @Test func aRefusedReloadIsToldAndSoIsTheOneThatSucceeds() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let written = LineLog()
            let built = try setup(harness, rules: AgentHarness.rulesText, written: written)
            let attempts = LineLog()
            let clock = ParkingClock(harness.clock.now())
            let loop = AgentLoop(setup: built, rebuild: {
                attempts.add("reload")
                if attempts.all.count < 3 { throw ConfigurationError("the rules have 1 error:\n  rules.yml:3:5: error: unknown condition", file: "config.yml") }
                return built
            }, clock: clock, random: { 0 }, log: { _ in })
            let running = Task { try await loop.run() }
            await clock.parked(total: 1)
            await loop.reload() // refused
            await clock.parked(total: 2)
            await loop.reload() // refused again, the same way: not told twice
            await clock.parked(total: 3)
            await loop.reload() // succeeds
            await clock.parked(total: 4)
            await loop.stop()
            try await running.value
            let failed = written.all.filter { $0.contains("[tophhie.notice.rules-reload-failed]") }
            #expect(failed.count == 1, "\(written.all)")
            #expect(failed.first?.contains("config.yml: error: the rules have 1 error:; rules.yml:3:5: error: unknown condition; still running the previous 2 rules") == true, "\(failed)")
            #expect(written.all.filter { $0.contains("[tophhie.notice.rules-reloaded]") }.count == 1, "\(written.all)")
        }
    }

    @Test func theDaemonStopsWhenItsStateDirectoryIsRemoved() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let built = try setup(harness, rules: AgentHarness.rulesText)
            let lines = LineLog()
            let clock = ParkingClock(harness.clock.now())
            let loop = AgentLoop(setup: built, rebuild: { built }, clock: clock, random: { 0 }, log: lines.add)
            let running = Task { try await loop.run() }
            await clock.parked(total: 1)
            try FileManager.default.removeItem(at: harness.stateDirectory)
            clock.advance(by: 3600)
            await #expect(throws: StateUnwritable.self) { try await running.value }
            #expect(lines.all.contains { $0.hasPrefix("stopping: the state directory \(harness.stateDirectory.path) was removed while the agent ran; it is not recreated") }, "\(lines.all)")
            #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory.path))
        }
    }
}

final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

extension AgentLoopTests {
    /// Several accounts (issue 49): the daemon polls them one after another at even steps over
    /// the interval, each from its own state, and every log line names its account.
    @Test func severalAccountsArePolledAtEvenStepsOverTheInterval() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            var configuration = try configuration(harness, rules: AgentHarness.rulesText)
            configuration.pollInterval = 300
            configuration.accounts = ["ann", "ben", "cat"].map { AccountConfiguration(name: $0) }
            // Each account signed in as the harness's one person: its own copy of the cache.
            for account in configuration.everyAccount() {
                try FileManager.default.createDirectory(at: account.stateDirectory, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: harness.stateDirectory.appendingPathComponent("tokens.json"), to: account.stateDirectory.appendingPathComponent("tokens.json"))
            }
            let accounts = try WatchedAccounts.build(configuration, environment: .init(variables: [:], clock: harness.clock, transport: harness.tenant.transport(clock: harness.clock)))
            let lines = LineLog()
            let clock = ParkingClock(harness.clock.now())
            let start = clock.now()
            let loop = AgentLoop(accounts: accounts, rebuild: { accounts }, clock: clock, random: { 0 }, log: lines.add)
            let running = Task { try await loop.run() }
            var polledAt: [Double] = []
            for step in 1...3 {
                await clock.parked(total: step)
                polledAt.append(clock.now().timeIntervalSince(start))
                #expect(await loop.reports.count == step, "one account a step")
                clock.advance(by: 100)
            }
            await clock.parked(total: 4)
            await loop.stop()
            try await running.value
            #expect(polledAt == [0, 100, 200], "a third of the interval between accounts")
            // The second cycle was stopped after its first account: it counts, with what it polled.
            #expect(await loop.cycles == 2)
            #expect(await loop.reports.count == 4)
            #expect(["ann", "ben", "cat"].allSatisfy { name in lines.all.contains { $0.hasPrefix("\(name): learned from ") } }, "\(lines.all)")
            for account in configuration.everyAccount() {
                #expect(FileManager.default.fileExists(atPath: account.stateDirectory.appendingPathComponent("state.json").path))
            }
            #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory.appendingPathComponent("state.json").path))
        }
    }
}
