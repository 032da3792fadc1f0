import Foundation

/// Tells a windowed fetch which sign-ins the caller has already processed, from their bytes as
/// Graph sent them, so a poll that re-reads its window decodes only what is new or changed.
///
/// A sign-in Graph re-publishes with other content has other bytes, so it is never recognised
/// and is decoded as a new one would be.
public protocol SignInRecognizer: Sendable {
    /// The key of one sign-in's exact bytes: equal keys mean equal bytes.
    func key(of record: UnsafeRawBufferPointer) -> SignInRecordKey
    /// Whether the sign-in with this key was processed before.
    func isProcessed(_ key: SignInRecordKey) -> Bool
}

/// 128 bits naming a sign-in's exact bytes (a keyed hash of them).
public struct SignInRecordKey: Hashable, Comparable, Sendable {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static func < (a: SignInRecordKey, b: SignInRecordKey) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

/// One sign-in a recognising fetch read: its id and time, and whether it was recognised.
public struct SignInRecord: Sendable, Equatable {
    public var id: String
    public var createdDateTime: Date
    public var key: SignInRecordKey
    /// Recognised from its bytes, so not decoded: it is not among the fetch's `events`.
    public var recognised: Bool

    public init(id: String, createdDateTime: Date, key: SignInRecordKey, recognised: Bool) {
        self.id = id
        self.createdDateTime = createdDateTime
        self.key = key
        self.recognised = recognised
    }
}
