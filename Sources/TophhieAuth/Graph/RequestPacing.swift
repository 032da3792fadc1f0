import Foundation

/// Graph's reporting API allows five requests per ten seconds per app and tenant: how long to
/// wait before the next sign-in request so that no ten seconds hold more than five. Pure; the
/// fetch sleeps what it says before each page of a re-read walk.
public struct RequestPacing: Sendable, Equatable {
    public static let limit = 5
    public static let window: TimeInterval = 10

    /// When the last `limit` requests were sent, oldest first.
    public private(set) var sent: [Date] = []

    public init() {}

    /// Seconds to wait at `now` before sending the next request.
    public func wait(now: Date) -> Double {
        guard sent.count >= Self.limit else { return 0 }
        return max(0, sent[sent.count - Self.limit].addingTimeInterval(Self.window).timeIntervalSince(now))
    }

    /// A request went out at `time`.
    public mutating func record(_ time: Date) {
        sent.append(time)
        if sent.count > Self.limit { sent.removeFirst(sent.count - Self.limit) }
    }
}
