import Foundation

/// Strings a slot layout's records held before, slot by slot, so a value met again (an app, a
/// browser, a country, a user's id) is handed back rather than made again: most of a sign-in's
/// strings repeat from one sign-in to the next, and making each anew (checking it, allocating
/// it, and freeing it with its batch) was a fifth of reading a record.
///
/// What it hands back is only ever the string of the very same bytes: a remembered string is
/// taken when its bytes' hash and then its bytes themselves are equal to the ones read, so a
/// crafted collision of the hash gets a string of its own. A slot whose strings rarely repeat
/// (an id, a time) soon stops being remembered. One reader at a time: made for a batch of
/// records read on one thread.
public final class JSONRepeatedTexts {
    /// Strings remembered per slot (a power of two), the most a slot's values can repeat among.
    static let perSlot = 256
    /// A slot is given up when, after this many strings, fewer than a quarter were met before.
    static let trial = 128

    private struct Entry {
        var hash: UInt64
        var text: String
        /// For a string written with escapes, its contents as written: what is compared.
        var written: [UInt8]? = nil
    }

    private let slots: Int
    private let entries: UnsafeMutablePointer<Entry>
    /// Per slot: strings read, strings found, and whether it is still remembered.
    private let read: UnsafeMutablePointer<Int32>
    private let found: UnsafeMutablePointer<Int32>
    private let given: UnsafeMutablePointer<Bool>
    /// What of each hash is kept: all of it, but for tests that make every string collide.
    private let hashMask: UInt64

    /// Room for a layout of `slots` slots (`JSONSlotLayout.paths.count`).
    init(slots: Int, hashMask: UInt64 = .max) {
        self.slots = max(slots, 1)
        self.hashMask = hashMask
        let count = self.slots * JSONRepeatedTexts.perSlot
        entries = .allocate(capacity: count)
        entries.initialize(repeating: Entry(hash: 0, text: ""), count: count)
        read = .allocate(capacity: self.slots)
        read.initialize(repeating: 0, count: self.slots)
        found = .allocate(capacity: self.slots)
        found.initialize(repeating: 0, count: self.slots)
        given = .allocate(capacity: self.slots)
        given.initialize(repeating: false, count: self.slots)
    }

    deinit {
        entries.deinitialize(count: slots * JSONRepeatedTexts.perSlot)
        entries.deallocate()
        read.deallocate()
        found.deallocate()
        given.deallocate()
    }

    /// Whether `slot`'s strings are still remembered.
    @inline(__always) package func remembers(_ slot: Int) -> Bool {
        slot < slots && !given[slot]
    }

    /// The string of `bytes` (a JSON string's contents without escapes) in `slot`: the one
    /// remembered when it holds these bytes, else `make`'s, remembered in its place.
    /// - Parameter make: the checked string of the bytes, nil when they are not UTF-8 (then
    ///   nothing is remembered).
    @inline(__always) package func text(slot: Int, _ bytes: UnsafeBufferPointer<UInt8>, make: () -> String?) -> String? {
        let hash = JSONRepeatedTexts.hash(bytes) & hashMask
        let entry = entries + (slot * JSONRepeatedTexts.perSlot + Int(truncatingIfNeeded: hash >> 56) & (JSONRepeatedTexts.perSlot - 1))
        if entry.pointee.hash == hash, JSONRepeatedTexts.holds(entry.pointee.text, bytes) {
            found[slot] &+= 1
            return entry.pointee.text
        }
        read[slot] &+= 1
        if read[slot] == Int32(JSONRepeatedTexts.trial), found[slot] < Int32(JSONRepeatedTexts.trial / 4) { given[slot] = true }
        guard let text = make() else { return nil }
        entry.pointee = Entry(hash: hash, text: text)
        return text
    }

    /// The string of contents written with escapes (`written`, as the record holds them: a
    /// Log Analytics row's dynamic column written as JSON text has an escaped quote every few
    /// bytes) in `slot`: the one remembered for these very bytes, else `make`'s, remembered in
    /// its place.
    /// - Throws: what `make` throws (then nothing is remembered).
    @inline(__always) package func text(slot: Int, written: UnsafeBufferPointer<UInt8>, make: () throws -> String) rethrows -> String {
        let hash = JSONRepeatedTexts.hash(written) & hashMask
        let entry = entries + (slot * JSONRepeatedTexts.perSlot + Int(truncatingIfNeeded: hash >> 56) & (JSONRepeatedTexts.perSlot - 1))
        if entry.pointee.hash == hash, let held = entry.pointee.written, held.count == written.count,
           held.withUnsafeBufferPointer({ $0.isEmpty || memcmp($0.baseAddress!, written.baseAddress!, $0.count) == 0 }) {
            found[slot] &+= 1
            return entry.pointee.text
        }
        read[slot] &+= 1
        if read[slot] == Int32(JSONRepeatedTexts.trial), found[slot] < Int32(JSONRepeatedTexts.trial / 4) { given[slot] = true }
        let text = try make()
        entry.pointee = Entry(hash: hash, text: text, written: Array(written))
        return text
    }

    /// Whether `text`'s UTF-8 is exactly `bytes`.
    @inline(__always) private static func holds(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { own in
            own.count == bytes.count && (own.isEmpty || memcmp(own.baseAddress!, bytes.baseAddress!, own.count) == 0)
        } ?? false
    }

    /// A hash of the bytes, eight at a time (the last eight overlapping the ones before), with
    /// the length: its top byte picks the place, all of it is compared before the bytes are.
    @inline(__always) package static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = bytes.count
        var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        guard let base = bytes.baseAddress else { return hash }
        let raw = UnsafeRawPointer(base)
        @inline(__always) func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
        }
        if count < 8 {
            var word: UInt64 = 0
            for index in 0..<count { word |= UInt64(base[index]) << UInt64(8 * index) }
            mix(word)
        } else {
            var index = 0
            while index + 8 <= count {
                mix(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                index += 8
            }
            if index < count { mix(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) }
        }
        return hash &* 0xC4CE_B9FE_1A85_EC53
    }
}
