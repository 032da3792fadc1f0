import Foundation
import TophhieJSON

/// The values one column's JSON text of an object gave (`RowSlots`), remembered for the text's
/// bytes on one thread: a row's device and status repeat from one row to the next, word for
/// word, and parsing each anew was a fifth of reading a CSV row or a row whose dynamic columns
/// are JSON text.
///
/// A reading is handed back only for the very same bytes: their hash and then the bytes
/// themselves are compared. A column whose texts rarely repeat (a place with its coordinates)
/// soon stops being remembered. One reader at a time.
final class RepeatedObjectTexts {
    /// What a text read to: the values at the column's `under` paths (names inside lowered, as
    /// the row holds them), or nil when it was not JSON.
    typealias Reading = [JSONValue?]?

    /// Texts remembered (a power of two).
    static let size = 64
    /// Given up when, after this many texts, fewer than a quarter were met before.
    static let trial = 128

    private struct Entry {
        var hash: UInt64
        var bytes: [UInt8]
        var reading: Reading
    }

    private var entries = [Entry?](repeating: nil, count: RepeatedObjectTexts.size)
    private var read = 0, found = 0
    private let hashMask: UInt64
    /// Whether texts are still remembered.
    private(set) var remembers = true

    /// - Parameter hashMask: what of each hash is kept: all of it, but for tests that make
    ///   every text collide.
    init(hashMask: UInt64 = .max) {
        self.hashMask = hashMask
    }

    /// The reading remembered for these bytes; nil when there is none.
    func reading(of bytes: UnsafeRawBufferPointer) -> Reading? {
        guard remembers else { return nil }
        let hash = Self.hash(bytes) & hashMask
        guard let entry = entries[Self.place(hash)], entry.hash == hash, Self.same(entry.bytes, bytes) else {
            read += 1
            if read == Self.trial, found < Self.trial / 4 { remembers = false; entries = [] }
            return nil
        }
        found += 1
        return .some(entry.reading)
    }

    /// Remembers what these bytes read to, in the place of what was there.
    func remember(_ bytes: UnsafeRawBufferPointer, _ reading: Reading) {
        guard remembers else { return }
        let hash = Self.hash(bytes) & hashMask
        entries[Self.place(hash)] = Entry(hash: hash, bytes: Array(bytes), reading: reading)
    }

    private static func same(_ held: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
        held.count == bytes.count && held.withUnsafeBytes { held in held.isEmpty || memcmp(held.baseAddress!, bytes.baseAddress!, held.count) == 0 }
    }

    private static func place(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> 58) & (size - 1)
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        JSONRepeatedTexts.hash(bytes.bindMemory(to: UInt8.self))
    }
}
