/// Runs services side by side and owns the process's signals: the one bridge from SIGTERM,
/// SIGINT and SIGHUP to the services.
///
/// - The first SIGTERM or SIGINT asks every service to shut down gracefully (finish the cycle);
///   a second one, or the grace period passing on the clock, cancels them (stop now).
/// - SIGHUP asks every service to reload.
/// - When every service has returned, `run()` returns; the first error a service throws cancels
///   the others and is rethrown.
public struct ServiceGroup: Sendable {
    private let services: [any Service]
    private let signals: AsyncStream<SignalHandlers.Signal>
    private let gracePeriod: Double?
    private let clock: any TophhieClock
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - signals: the signals to act on; `SignalHandlers.stream()` in a process, a hand-fed
    ///     stream in tests.
    ///   - gracePeriod: seconds a graceful shutdown may take before the services are cancelled;
    ///     nil waits for as long as they take.
    ///   - clock: where the grace period is measured.
    public init(services: [any Service], signals: AsyncStream<SignalHandlers.Signal>, gracePeriod: Double? = nil,
                clock: any TophhieClock = SystemClock(), log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.services = services
        self.signals = signals
        self.gracePeriod = gracePeriod
        self.clock = clock
        self.log = log
    }

    private enum Finished: Sendable {
        /// A service returned.
        case service
        /// Stop now: cancel what still runs.
        case stopNow
        /// No more signals will come; the services run on.
        case signalsEnded
    }

    /// Runs until every service has returned.
    /// - Throws: the first error a service throws (the others are cancelled first).
    public func run() async throws {
        let services = self.services
        let signals = self.signals
        let gracePeriod = self.gracePeriod
        let clock = self.clock
        let log = self.log
        try await withThrowingTaskGroup(of: Finished.self) { group in
            for service in services {
                group.addTask { try await service.run(); return .service }
            }
            group.addTask {
                var stopping = false
                for await signal in signals {
                    switch signal {
                    case .hangup:
                        log("SIGHUP: reloading before the next cycle")
                        for service in services { await service.reload() }
                    case .terminate, .interrupt:
                        if stopping {
                            log("second stop signal: stopping now")
                            return .stopNow
                        }
                        stopping = true
                        log("stopping after the current cycle")
                        for service in services { await service.shutdownGracefully() }
                        if let gracePeriod {
                            // Within the group, so the deadline ends when the services do.
                            try await clock.sleep(seconds: gracePeriod)
                            log("the services did not stop within \(HTTPTransportError.seconds(gracePeriod)): stopping now")
                            return .stopNow
                        }
                    }
                }
                return .signalsEnded
            }
            var running = services.count
            while running > 0, let finished = try await group.next() {
                switch finished {
                case .service: running -= 1
                case .stopNow: group.cancelAll() // cancel the services, then collect them
                case .signalsEnded: break
                }
            }
            group.cancelAll()
        }
    }
}
