import Foundation

/// What one notifier's channel remembers between processes: a receiver's `Retry-After` (so a
/// cron poll five minutes later honours an hour's wait) and whether the receiver disabled it.
///
/// Kept in `<stateDir>/outbox/<notifier>.status.json`, 0600, replaced atomically.
public struct OutboxChannelStatus: Sendable, Hashable, Codable {
    /// Why and since when the receiver turned this notifier off (HTTP 410 Gone).
    public struct Disabled: Sendable, Hashable, Codable {
        public var reason: String
        public var since: Date

        public init(reason: String, since: Date) {
            self.reason = reason
            self.since = since
        }
    }

    /// No delivery before this time: the receiver's `Retry-After`.
    public var notBefore: Date?
    /// Set while the receiver has asked not to be sent anything; alerts stay queued.
    public var disabled: Disabled?
    /// The first drain since the last success that could not deliver (a transient failure
    /// outlasting its cycle, or a `Retry-After` still running); nil while the channel works.
    public var failingSince: Date?

    public init(notBefore: Date? = nil, disabled: Disabled? = nil) {
        self.notBefore = notBefore
        self.disabled = disabled
    }
}
