import TophhieJSON
import TophhieRules

/// A streamed sign-in's revision (`SlotEvent.revision`): its slots' values hashed in slot order,
/// eight bytes at a time, into 84 bits written as 14 characters.
///
/// Only ever compared with revisions of the same run's layout (a replay's state is not kept),
/// so it need not be `JSONRuleEvent`'s FNV-1a, which steps a byte at a time through a 128-bit
/// multiply (8% of a replay's reading thread) and whose 32 hex digits need an allocation for
/// every event; 14 characters fit in a string's own bytes. Like FNV-1a it is not keyed: the
/// engine takes no randomness. Strings carry their length and a tag per kind, so values of
/// other shapes or split elsewhere do not meet.
struct SlotRevision {
    private var a: UInt64 = 0x243F_6A88_85A3_08D3
    private var b: UInt64 = 0x1319_8A2E_0370_7344

    /// One word into both lanes (different multipliers, so one lane's collision is not the other's).
    @inline(__always) mutating func add(_ word: UInt64) {
        a = (a ^ word) &* 0x9E37_79B9_7F4A_7C15
        a ^= a >> 29
        b = (b &+ word) &* 0xC2B2_AE3D_27D4_EB4F
        b ^= b >> 31
    }

    /// A value with its kind: `JSONRuleEvent.feed`'s shapes, a word at a time.
    mutating func add(_ value: JSONValue) {
        switch value {
        case .null: add(0x6E)
        case .bool(let flag): add(flag ? 0x74 : 0x66)
        case .int(let i):
            add(0x69)
            add(UInt64(bitPattern: i))
        case .double(let d):
            add(0x64)
            add(d.bitPattern)
        case .string(let s): add(text: s)
        case .array(let items):
            add(0x5B)
            for item in items { add(item) }
            add(0x5D)
        case .object(let members):
            // Members hashed apart and summed: key order does not count.
            var sumA: UInt64 = 0, sumB: UInt64 = 0
            for (key, member) in members {
                var part = SlotRevision()
                part.add(text: key)
                part.add(member)
                sumA &+= part.a
                sumB &+= part.b
            }
            add(0x7B)
            add(sumA)
            add(sumB)
        }
    }

    /// A string, read in place (a native string's bytes are contiguous).
    @inline(__always) mutating func add(text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { add(text: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(text.utf8).withUnsafeBytes { add(text: $0) } }
    }

    /// A string's bytes: its tag and length, then its bytes a word at a time (the last word
    /// padded with zeros, which the length tells apart). A string of one to seven bytes is one
    /// word, its length in the top byte: most slot values are that short ("GB", "none",
    /// "Browser"), and a tag word of their own was a third of the revision's work. No other
    /// value's first word has a top byte of 1 to 7 (tags are small numbers), so the words of a
    /// sign-in's slots still read back one way only.
    mutating func add(text bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0, bytes.count < 8 {
            var word = UInt64(bytes.count) << 56
            for index in 0..<bytes.count { word |= UInt64(bytes[index]) << UInt64(8 * index) }
            add(word)
            return
        }
        add(0x73 | UInt64(bytes.count) << 8)
        var offset = 0
        while offset + 8 <= bytes.count {
            add(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        let left = bytes.count - offset
        guard left > 0 else { return }
        if bytes.count >= 8 {
            // The last eight bytes, overlapping the word before: shifted, only the tail is left.
            add(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)) >> UInt64(8 * (8 - left)))
        } else {
            var last: UInt64 = 0
            for index in 0..<left { last |= UInt64(bytes[index]) << UInt64(8 * index) }
            add(last)
        }
    }

    /// A slot's value, or the mark of a slot without one.
    mutating func add(slot value: JSONValue?) {
        switch value {
        case .some(let value): add(value)
        case .none: add(0xFF)
        }
    }

    /// The two lanes as one word, for a table's place (`MatchMemo`): not the revision's text.
    var word: UInt64 {
        let mixed = (a ^ b.rotated(by: 17)) &* 0x9E37_79B9_7F4A_7C15
        return mixed ^ (mixed >> 32)
    }

    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_".utf8)

    /// The two lanes mixed (murmur3's finaliser, each over both) and written as 14 characters
    /// of six bits: 84 bits, in a string small enough to need no allocation.
    var text: String {
        func mix(_ x: UInt64) -> UInt64 {
            var x = x
            x ^= x >> 33
            x &*= 0xFF51_AFD7_ED55_8CCD
            x ^= x >> 33
            x &*= 0xC4CE_B9FE_1A85_EC53
            x ^= x >> 33
            return x
        }
        let high = mix(a ^ b.rotated(by: 17)), low = mix(b &+ a)
        return String(unsafeUninitializedCapacity: 14) { buffer in
            for position in 0..<7 {
                buffer[position] = SlotRevision.digits[Int((high >> UInt64(6 * position)) & 63)]
                buffer[7 + position] = SlotRevision.digits[Int((low >> UInt64(6 * position)) & 63)]
            }
            return 14
        }
    }
}

private extension UInt64 {
    func rotated(by count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}
