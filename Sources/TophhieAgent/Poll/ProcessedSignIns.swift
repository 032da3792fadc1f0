import Foundation
import TophhieAuth

/// The sign-ins the engine has processed, each named by a keyed hash of its exact bytes, so the
/// next poll recognises them in its re-read window without decoding them or reading the engine's
/// state.
///
/// A recognised sign-in is one the engine would skip anyway: its id is remembered with the same
/// content. Only such sign-ins are added (`recording`), and entries are forgotten long before
/// the engine forgets the ids. The key is random per state (SipHash-2-4), so nobody who cannot
/// read the state can make a new sign-in's bytes pass for one already processed.
///
/// Stored as `{"key": <32 hex digits>, "entries": <base64 of 24-byte entries>}`: each entry is
/// the 16-byte value (little-endian, low word first) and the event time in whole seconds
/// (little-endian), sorted by value.
public struct ProcessedSignIns: SignInRecognizer, Codable, Equatable {
    private let hasher: SipHash128
    private let keyText: String
    /// Each value with its event time in whole seconds since 1970, sorted by value: read, looked
    /// up and written as it is stored, where a dictionary was hashed whole on every load and
    /// sorted on every commit (a tenth of a poll with nothing new).
    private(set) var entries: [Entry]

    struct Entry: Equatable {
        var key: SignInRecordKey
        var seconds: Int64
    }

    /// An empty set with a fresh random key.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(key: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }, entries: [])
    }

    /// - Parameter entries: sorted by key, each key once.
    init(key: [UInt8], entries: [Entry]) {
        hasher = SipHash128(key: key)
        keyText = Self.hex(key)
        self.entries = entries
    }

    /// How long past the lookback entries are kept: the next poll re-reads from a lookback
    /// before this one, and may come late.
    public static let margin: TimeInterval = 3600

    public var count: Int { entries.count }

    public func key(of record: UnsafeRawBufferPointer) -> SignInRecordKey {
        let (high, low) = hasher.hash(record)
        return SignInRecordKey(high: high, low: low)
    }

    public func isProcessed(_ key: SignInRecordKey) -> Bool {
        let at = position(of: key)
        return at < entries.count && entries[at].key == key
    }

    /// Where `key` is, or would go, in `entries`.
    private func position(of key: SignInRecordKey) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The set after this poll: what it held and what this poll recognised, and what the engine
    /// now holds with the same content, each with an event time after `cutoff`; everything older
    /// is forgotten. Earlier entries are kept: a poll re-reads only a slice of the window, and
    /// an entry names bytes the engine processed, whichever poll read them.
    /// - Parameter processed: whether a decoded sign-in is remembered by the engine as it is now.
    public func recording(_ records: [SignInRecord], processed: (SignInRecord) -> Bool, after cutoff: Date) -> ProcessedSignIns {
        let floor = Int64(cutoff.timeIntervalSince1970.rounded(.down))
        var added: [SignInRecordKey: Int64] = [:]
        for record in records where record.recognised || processed(record) {
            let seconds = Int64(record.createdDateTime.timeIntervalSince1970.rounded(.down))
            if seconds > floor { added[record.key] = seconds }
        }
        // The kept entries and the added ones, merged in key order; an added one replaces a kept one.
        let fresh = added.map { Entry(key: $0.key, seconds: $0.value) }.sorted { $0.key < $1.key }
        var merged: [Entry] = []
        merged.reserveCapacity(entries.count + fresh.count)
        var next = fresh.startIndex
        for entry in entries where entry.seconds > floor {
            while next < fresh.endIndex, fresh[next].key < entry.key {
                merged.append(fresh[next])
                next += 1
            }
            if next < fresh.endIndex, fresh[next].key == entry.key { continue }
            merged.append(entry)
        }
        merged += fresh[next...]
        var result = self
        result.entries = merged
        return result
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey { case key, entries }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let keyText = try container.decode(String.self, forKey: .key)
        guard let key = Self.bytes(hex: keyText), key.count == 16 else {
            throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "not 32 hex digits")
        }
        guard let data = Data(base64Encoded: try container.decode(String.self, forKey: .entries)), data.count % 24 == 0 else {
            throw DecodingError.dataCorruptedError(forKey: .entries, in: container, debugDescription: "not base64 of 24-byte entries")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(data.count / 24)
        data.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count, by: 24) {
                let low = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                entries.append(Entry(key: SignInRecordKey(high: high, low: low), seconds: Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self))))
            }
        }
        // Written sorted, each key once; a file edited by hand is put in order (the last of a
        // repeated key kept, as the dictionary this was read into did).
        if zip(entries, entries.dropFirst()).contains(where: { !($0.key < $1.key) }) {
            var byKey: [SignInRecordKey: Int64] = [:]
            for entry in entries { byKey[entry.key] = entry.seconds }
            entries = byKey.map { Entry(key: $0.key, seconds: $0.value) }.sorted { $0.key < $1.key }
        }
        self.init(key: key, entries: entries)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keyText, forKey: .key)
        // In key order, so the same set always writes the same bytes; stored word by word into one
        // buffer (appending eight bytes at a time to a `Data` was most of a no-op poll's commit).
        let bytes = [UInt8](unsafeUninitializedCapacity: entries.count * 24) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            for (index, entry) in entries.enumerated() {
                raw.storeBytes(of: entry.key.low.littleEndian, toByteOffset: index * 24, as: UInt64.self)
                raw.storeBytes(of: entry.key.high.littleEndian, toByteOffset: index * 24 + 8, as: UInt64.self)
                raw.storeBytes(of: entry.seconds.littleEndian, toByteOffset: index * 24 + 16, as: Int64.self)
            }
            count = entries.count * 24
        }
        try container.encode(Data(bytes).base64EncodedString(), forKey: .entries)
    }

    public static func == (a: ProcessedSignIns, b: ProcessedSignIns) -> Bool {
        a.keyText == b.keyText && a.entries == b.entries
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The bytes as lower-case hex digits, two a byte (`String(format:)` a byte looked its
    /// argument's conformances up at run time, on every poll).
    static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = hexDigits[Int(byte >> 4)]
                buffer[2 * index + 1] = hexDigits[Int(byte & 0xF)]
            }
            return bytes.count * 2
        }
    }

    private static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
