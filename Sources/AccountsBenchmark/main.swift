// Issue 49's scale figure: ACCOUNTS accounts of one tenant at 5-minute polls in ONE daemon
// (`AgentLoop` over `WatchedAccounts`, built from config text with `accounts:`), against the
// simulated tenant serving as many people with Graph's limit enforced (5 sign-in log requests
// per 10 s, then 429). Both run in this process on one clock (`SkippingClock`), the tenant over
// loopback HTTP. benchmarks/accounts.sh builds and runs it; it measures and prints, asserts nothing
// but that each login signs in the next person.
// Usage: AccountsBenchmark RULES_DIR [ACCOUNTS (30)] [STEADY_CYCLES (3)]
import Foundation
import LoopbackHTTP
import TophhieAgent
import TophhieAuth
import TophhieSimulator
import TophhieSystem

MallocArenas.useOne()  // as the shipped binary does, before any thread allocates

/// Real time, with every wait skipped: a sleep moves the clock on by its length at once.
///
/// The agent and the tenant read it alike, so the time a request, a page or a rule evaluation
/// really takes passes on both sides, and only the idle waits (the interval, the budget's pacing,
/// the device-code polling) are jumped. Waits are additive, which is exact here: the daemon polls
/// its accounts one after another and a poll sends its requests in turn, so one task waits at a time.
/// Each wait first awaits `onWait`: while the agent waits, nothing is sent, so the harness may
/// read the tenant.
final class SkippingClock: TophhieClock, @unchecked Sendable {
    private let lock = NSLock()
    private let start: Date
    private let realStart = ProcessInfo.processInfo.systemUptime
    private var skipped = 0.0
    private var hook: (@Sendable () async -> Void)?

    init(start: Date) { self.start = start }

    var onWait: (@Sendable () async -> Void)? {
        get { lock.withLock { hook } }
        set { lock.withLock { hook = newValue } }
    }

    func now() -> Date {
        lock.withLock { start.addingTimeInterval(ProcessInfo.processInfo.systemUptime - realStart + skipped) }
    }

    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        await onWait?()
        lock.withLock { skipped += max(0, seconds) }
        await Task.yield()
    }
}

/// What was true at the end of each cycle (when its last account's report came).
struct CycleEnd {
    var at: Date
    var realSeconds: Double
    var cpuSeconds: Double
    var learning: Bool
    var fetched: Int
    var failed: Int
    var residentMB: Double
}

/// Collects the reports the loop hands over, from whatever thread the loop runs on.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var learning = false, fetched = 0, failed = 0
    private var ends: [CycleEnd] = []
    private(set) var alertLines = 0
    let accounts: Int
    let clock: SkippingClock

    init(accounts: Int, clock: SkippingClock) {
        self.accounts = accounts
        self.clock = clock
    }

    func alertWritten() { lock.withLock { alertLines += 1 } }

    func add(_ report: PollReport) {
        lock.withLock {
            count += 1
            learning = learning || report.plan.learning
            fetched += report.fetched
            if !report.wentWell { failed += 1 }
            if count % accounts == 0 {
                ends.append(CycleEnd(at: clock.now(), realSeconds: ProcessInfo.processInfo.systemUptime, cpuSeconds: cpuSeconds(), learning: learning, fetched: fetched, failed: failed, residentMB: statusMegabytes("VmRSS")))
                learning = false; fetched = 0; failed = 0
            }
        }
    }

    var cycles: [CycleEnd] { lock.withLock { ends } }
}

/// What the tenant received in one cycle.
struct CycleRequests {
    var signIns = 0, me = 0, token = 0, refused = 0
    var first: Date?, last: Date?

    init(_ requests: [RecordedRequest]) {
        signIns = requests.count { $0.path.hasSuffix("/auditLogs/signIns") }
        me = requests.count { $0.path.hasSuffix("/me") }
        token = requests.count { $0.path.hasSuffix("/token") }
        refused = requests.count { $0.status == 429 }
        first = requests.first?.time
        last = requests.last?.time
    }
}

/// The requests the tenant received in each cycle, counted from its log at the first wait after
/// the cycle ends, and the log emptied: neither the log nor the requests are kept, so that the
/// memory measured is not the harness's.
actor RequestLedger {
    let tenant: SimulatedTenant
    private(set) var perCycle: [CycleRequests] = []

    init(tenant: SimulatedTenant) { self.tenant = tenant }

    func take(endedCycles: Int) async {
        guard perCycle.count < endedCycles else { return }
        perCycle.append(CycleRequests(await tenant.requests))
        await tenant.clearRequestLog()
    }
}

/// User and system CPU of this process so far (getrusage).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// A line of /proc/self/status in MB, e.g. VmHWM (the peak resident set) or VmRSS.
func statusMegabytes(_ key: String) -> Double {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix(key + ":") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("AccountsBenchmark: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard (2...4).contains(arguments.count) else { fail("usage: AccountsBenchmark RULES_DIR [ACCOUNTS] [STEADY_CYCLES]") }
let rulesDirectory = arguments[1]
let accountCount = arguments.count > 2 ? Int(arguments[2]) ?? 30 : 30
let steadyCycles = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3

// The tenant `simulate --people N --graph-limit` serves, on the shared clock.
let clock = SkippingClock(start: Date())
var scenario = SimulatorScenario(
    tenantID: "8f2d6c1e-6b55-4a8e-9f0a-3b1c2d4e5f60", tenantAliases: ["contoso.onmicrosoft.com"],
    clientID: "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c",
    user: SimulatedUser(id: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", kind: .consumer, profile: [:]),
    consentedScopes: ["User.Read", "User.ReadWrite", "AuditLog.Read.All", "Directory.Read.All", "User.RevokeSessions.All"],
    deviceCode: DeviceCodeSettings(autoApproveAfterSeconds: 3, expiresIn: 900, interval: 1),
    generate: [SignInGeneration(pattern: .normalHistory, seed: 7, days: 14)]
).servingPeople(accountCount)
scenario.throttle = ThrottleSettings(enabled: true, requests: 5, windowSeconds: 10)
let tenant = SimulatedTenant(scenario: scenario, now: { clock.now() })
// TRANSPORT=embedded calls the tenant in-process instead of over loopback and URLSession, to
// tell the HTTP stacks' memory from the agent's.
let embedded = ProcessInfo.processInfo.environment["TRANSPORT"] == "embedded"
let endpoints = embedded ? await tenant.embeddedEndpoints() : try await tenant.start()
let transport: any HTTPTransport = embedded ? tenant.transport(clock: clock) : URLSessionTransport()
let work = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-accounts-\(ProcessInfo.processInfo.processIdentifier)")
defer { try? FileManager.default.removeItem(at: work) }

let configText = """
    tenant: \(endpoints.tenantID)
    client_id: \(endpoints.clientID)
    authority: \(endpoints.authority.absoluteString)
    graph_url: \(endpoints.graphBaseURL.absoluteString)
    state_dir: \(work.path)
    poll:
      interval: 5m
      jitter: 0s
    rules:
      - \(rulesDirectory)
    notifiers:
      - name: console
        type: stdout
        format: json
    accounts:
    \((1...accountCount).map { "  - name: person\($0)" }.joined(separator: "\n"))
    """
let configuration = try AgentConfiguration.parse(configText, file: "accounts-benchmark.yml", baseDirectory: work, environment: [:])

// Each account signs in with a device code; the tenant approves each as the next person.
let loginStarted = ProcessInfo.processInfo.systemUptime
for (index, account) in configuration.everyAccount().enumerated() {
    let auth = TophhieAuth(configuration: try account.authConfiguration(), transport: transport, clock: clock)
    let session = try await auth.signIn(scopes: TophhieScopes.forLogin(named: [], alreadyGranted: [])) { _ in }
    let expected = "person\(index + 1)@contoso.com"
    guard session.userPrincipalName == expected else { fail("login \(index + 1) signed in \(session.userPrincipalName ?? "nobody"), not \(expected)") }
}
let loginSeconds = ProcessInfo.processInfo.systemUptime - loginStarted
await tenant.clearRequestLog()
let beforeAgent = (hwm: statusMegabytes("VmHWM"), rss: statusMegabytes("VmRSS"))

// The daemon, as `run` builds it.
let recorder = Recorder(accounts: accountCount, clock: clock)
let accounts = try WatchedAccounts.build(configuration, environment: .init(variables: [:], write: { _ in recorder.alertWritten() }, clock: clock, transport: transport))
let loop = AgentLoop(accounts: accounts, rebuild: { accounts }, clock: clock, random: { 0 }, log: { line in
    FileHandle.standardError.write(Data("\(line)\n".utf8))
}, onReport: { recorder.add($0) })
let ledger = RequestLedger(tenant: tenant)
clock.onWait = { await ledger.take(endedCycles: recorder.cycles.count) }
let loopStart = (at: clock.now(), real: ProcessInfo.processInfo.systemUptime, cpu: cpuSeconds())
try await loop.run(maxCycles: 1 + steadyCycles)
clock.onWait = nil
await ledger.take(endedCycles: recorder.cycles.count)
let requestsPerCycle = await ledger.perCycle
let refusedInAll = await tenant.graphLimitRefusals

// The limit is live: person1 read three times at once, without the shared budget (each read is
// both streams' first page), must be refused a request.
let unpaced = TophhieAuth(configuration: try configuration.everyAccount()[0].authConfiguration(), transport: transport, clock: clock)
for _ in 1...3 { _ = try? await unpaced.fetchSignIns(since: clock.now().addingTimeInterval(-3600)) }
let probeRefused = await tenant.graphLimitRefusals - refusedInAll
await tenant.stop()

// The budget arithmetic the configuration is loaded with.
if let fit = configuration.graphBudgetFit(), let share = fit.tenants.first {
    print("budget (AgentConfiguration.graphBudgetFit): \(share.accounts) accounts x \(configuration.everyAccount()[0].steadyRequestsPerPoll) requests a poll with nothing new (2 per stream x \(configuration.signInAPI.streams.count) streams + GET /me)")
    print("  = \(fit.statusLine(for: share.key) ?? "?"): fits \(fit.fits ? "yes" : "NO"), shortest interval that fits \(Int(fit.shortestInterval / 60))m")
    print("  the simulator counts sign-in log requests only: \(share.accounts * 2 * configuration.signInAPI.streams.count) of \(share.allowedPerCycle) of those")
}
print("logins: \(accountCount) device-code sign-ins, person1 to person\(accountCount), in \(String(format: "%.1f", loginSeconds)) s real")
print("")
print("cycle      sign-in  /me  token  429s  span(sim)  period(sim)  wall     cpu/account  fetched  not ok  resident")
var previous = (at: loopStart.at, real: loopStart.real, cpu: loopStart.cpu)
for (number, end) in recorder.cycles.enumerated() {
    let mine = requestsPerCycle[number]
    let (signIns, me, token, refused) = (mine.signIns, mine.me, mine.token, mine.refused)
    let span = mine.last.map { $0.timeIntervalSince(mine.first ?? $0) } ?? 0
    let label = end.learning ? "learning" : "steady \(number)"
    print(label.padding(toLength: 10, withPad: " ", startingAt: 0) + String(format: " %7d %4d %6d %5d %8.0f s %10.0f s %6.2f s %9.1f ms %8d %7d %6.1f MB", signIns, me, token, refused, span,
                 end.at.timeIntervalSince(previous.at), end.realSeconds - previous.real, (end.cpuSeconds - previous.cpu) * 1000 / Double(accountCount), end.fetched, end.failed, end.residentMB))
    previous = (at: end.at, real: end.realSeconds, cpu: end.cpuSeconds)
}
print("")
print("429s answered by the simulator in all (graphLimit.refused): \(refusedInAll); alert lines written: \(recorder.alertLines)")
print("then, the limit live: person1 read 3 times back to back without the shared budget (6 sign-in log requests) drew \(probeRefused) 429\(probeRefused == 1 ? "" : "s")")
print(String(format: "peak memory (VmHWM, agent and simulator in one process): %.1f MB (goal <= 150 MB); before the agent started (simulator, %d people, logins done): peak %.1f MB, resident %.1f MB", statusMegabytes("VmHWM"), accountCount, beforeAgent.hwm, beforeAgent.rss))
