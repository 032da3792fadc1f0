import Foundation
import Testing
import TophhieSystem

/// A service that records what it was asked and finishes only when told to (or cancelled).
actor ScriptedService: Service {
    private(set) var events: [String] = []
    private var finish: CheckedContinuation<Void, Never>?
    private var finishRequested = false
    private var started: [CheckedContinuation<Void, Never>] = []
    private var isRunning = false

    /// Whether a graceful shutdown ends `run()` (a well-behaved service) or is ignored (a stuck one).
    let honoursGracefulShutdown: Bool
    init(honoursGracefulShutdown: Bool = true) { self.honoursGracefulShutdown = honoursGracefulShutdown }

    func run() async throws {
        isRunning = true
        for waiter in started { waiter.resume() }
        started.removeAll()
        events.append("run")
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if finishRequested { continuation.resume() } else { finish = continuation }
            }
        } onCancel: {
            Task { await self.end("cancelled") }
        }
        events.append("returned")
    }

    func shutdownGracefully() async {
        events.append("graceful")
        if honoursGracefulShutdown { end(nil) }
    }

    func reload() async { events.append("reload") }

    private func end(_ event: String?) {
        if let event { events.append(event) }
        finishRequested = true
        finish?.resume()
        finish = nil
    }

    func waitUntilRunning() async {
        if isRunning { return }
        await withCheckedContinuation { started.append($0) }
    }
}

@Suite(.timeLimit(.minutes(20))) struct ServiceGroupTests {
    @Test func aStopSignalIsGracefulAndReloadReachesEveryService() async throws {
        let (signals, send) = AsyncStream<SignalHandlers.Signal>.makeStream()
        let first = ScriptedService(), second = ScriptedService()
        let group = Task { try await ServiceGroup(services: [first, second], signals: signals).run() }
        await first.waitUntilRunning()
        await second.waitUntilRunning()
        send.yield(.hangup)
        send.yield(.terminate)
        try await group.value
        #expect(await first.events == ["run", "reload", "graceful", "returned"])
        #expect(await second.events == ["run", "reload", "graceful", "returned"])
    }

    @Test func aSecondStopSignalCancelsAStuckService() async throws {
        let (signals, send) = AsyncStream<SignalHandlers.Signal>.makeStream()
        let stuck = ScriptedService(honoursGracefulShutdown: false)
        let group = Task { try await ServiceGroup(services: [stuck], signals: signals).run() }
        await stuck.waitUntilRunning()
        send.yield(.interrupt)
        send.yield(.interrupt)
        try await group.value
        #expect(await stuck.events == ["run", "graceful", "cancelled", "returned"])
    }

    @Test func theGracePeriodCancelsAStuckServiceOnTheClock() async throws {
        let (signals, send) = AsyncStream<SignalHandlers.Signal>.makeStream()
        let stuck = ScriptedService(honoursGracefulShutdown: false)
        let clock = ParkingClock(Date(timeIntervalSince1970: 0))
        let group = Task { try await ServiceGroup(services: [stuck], signals: signals, gracePeriod: 30, clock: clock).run() }
        await stuck.waitUntilRunning()
        send.yield(.terminate)
        await clock.parked(total: 1)
        clock.advance(by: 29)
        #expect(await stuck.events == ["run", "graceful"], "still inside the grace period")
        clock.advance(by: 1)
        try await group.value
        #expect(await stuck.events == ["run", "graceful", "cancelled", "returned"])
    }

    @Test func servicesThatFinishEndTheGroupWithoutASignal() async throws {
        let (signals, _) = AsyncStream<SignalHandlers.Signal>.makeStream()
        let done = ScriptedService()
        await done.shutdownGracefully() // asked before it runs: run() returns at once
        try await ServiceGroup(services: [done], signals: signals).run()
        #expect(await done.events == ["graceful", "run", "returned"])
    }
}
