import Foundation
import TophhieRules

/// The key a first-seen baseline knows a value by: its fields' texts, version words dropped
/// when the rule ignores versions (`EngineRun.withoutVersions`), joined by " / " and
/// lower-cased, written in one pass into one string.
///
/// Joining the texts, stripping their versions and folding the result each made a string of
/// their own (a device's "Windows / Edge 120.0.2210" took three, and a fifth of first-seen's
/// work); the value as shown in an alert is joined only for an alert.
enum FirstSeenValue {
    /// Keys longer than this are joined and folded the general way.
    static let longest = 256

    /// The key of the first `count` of `parts` when they are ASCII: the bytes
    /// `EngineRun.withoutVersions` would keep (when `ignoringVersions`), with " / " between
    /// parts, capitals folded. Nil when a part is not ASCII, not contiguous or the key would be
    /// longer than `longest`: the caller then joins and folds as Unicode asks.
    static func asciiKey(_ parts: [String], count: Int, ignoringVersions: Bool) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longest) { buffer -> String? in
            var at = 0
            for n in 0..<count {
                if n > 0 {
                    guard at + 3 <= longest else { return nil }
                    buffer[at] = 0x20; buffer[at + 1] = 0x2F; buffer[at + 2] = 0x20
                    at += 3
                }
                let written: Int? = parts[n].utf8.withContiguousStorageIfAvailable { bytes in
                    ignoringVersions ? writeKeptWords(bytes, into: buffer, at: at) : write(bytes, into: buffer, at: at)
                } ?? nil
                guard let written else { return nil }
                at = written
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<at]), as: UTF8.self)
        }
    }

    /// `bytes` folded into `buffer` from `at`: where they end, or nil for a byte that is not
    /// ASCII or no room.
    @inline(__always) private static func write(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int? {
        guard at + bytes.count <= buffer.count else { return nil }
        guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return at }
        // Through the pointers: the bounds were checked above, once.
        for offset in 0..<bytes.count {
            let byte = source[offset]
            guard byte < 0x80 else { return nil }
            target[at + offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
        }
        return at + bytes.count
    }

    /// The words of `bytes` (runs between spaces) that do not start with a digit, folded into
    /// `buffer` from `at` with one space between them: where they end, or nil for a byte that is
    /// not ASCII or no room.
    @inline(__always) private static func writeKeptWords(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int? {
        var at = start, index = 0
        while index < bytes.count {
            guard bytes[index] != 0x20 else { index += 1; continue }
            var end = index
            while end < bytes.count, bytes[end] != 0x20 { end += 1 }
            if !(bytes[index] >= 0x30 && bytes[index] <= 0x39) {
                if at > start {
                    guard at < buffer.count else { return nil }
                    buffer[at] = 0x20; at += 1
                }
                guard let next = write(UnsafeBufferPointer(rebasing: bytes[index..<end]), into: buffer, at: at) else { return nil }
                at = next
            } else if bytes[index..<end].contains(where: { $0 >= 0x80 }) {
                return nil
            }
            index = end
        }
        return at
    }
}
