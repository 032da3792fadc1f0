import Foundation
import TophhieRules

/// One alert waiting in an outbox, with when it was put there.
public struct OutboxEntry: Sendable, Hashable, Codable {
    public var alert: Alert
    public var appendedAt: Date

    public init(alert: Alert, appendedAt: Date) {
        self.alert = alert
        self.appendedAt = appendedAt
    }
}

/// Where one pending alert's line is in the queue file (`length` without the newline), with
/// what the queue needs without reading it: its id and when it was queued.
struct OutboxSlot: Hashable {
    var id: String
    var appendedAt: Date
    var offset: Int
    var length: Int
}

/// A line in the settled log: the alert id left the outbox, delivered or dead-lettered.
struct OutboxSettlement: Codable, Hashable {
    enum Outcome: String, Codable { case delivered, deadLettered = "dead-lettered" }
    var id: String
    var at: Date
    var outcome: Outcome
}

/// A line in the dead-letter file: the alert, when and why it was given up.
public struct DeadLetter: Sendable, Hashable, Codable {
    public var alert: Alert
    public var at: Date
    public var reason: String
}

/// The JSON used for outbox files: sorted keys, dates as exact seconds since 1970 so an alert
/// read back is equal to the one written.
enum OutboxCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// One JSON line, newline included.
    static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes = Array(try encoder().encode(value))
        bytes.append(0x0A)
        return bytes
    }
}
