/// A long-running piece of the product: the daemon's poll loop, the simulated tenant's server.
///
/// The shape of swift-service-lifecycle's `Service`: `run()` does the work until it is done or
/// its task is cancelled (stop now). A `ServiceGroup` runs services and turns signals into the
/// two other requests. They have no default: a no-op default would be chosen over a conforming
/// type's own synchronous `reload()` at an `await` call site, silently.
public protocol Service: Sendable {
    /// Does the work; returns when finished or cancelled.
    func run() async throws
    /// Finish what is under way, then let `run()` return (SIGTERM, SIGINT).
    func shutdownGracefully() async
    /// Re-read configuration before the next piece of work (SIGHUP).
    func reload() async
}
