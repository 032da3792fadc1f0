/// Finds where a JSON string ends, eight bytes at a time: most of a sign-in's bytes are string
/// contents, and looking at them one by one was most of the time spent finding records.
enum JSONStringScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080
    private static let quotes: UInt64 = 0x2222_2222_2222_2222
    private static let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C

    /// A word whose high bit is set in each byte of `word` equal to zero (and possibly in bytes
    /// above such a byte: only the lowest set bit is exact, which is the one used).
    @inline(__always) private static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highs
    }

    /// The index of the first `"` or `\` at or after `from`, or `bytes.count` when there is none.
    /// - Complexity: O(n), a word at a time.
    @inline(__always) static func quoteOrBackslash(in bytes: UnsafeRawBufferPointer, from: Int) -> Int {
        var index = from
        let count = bytes.count
        while index + 8 <= count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let found = zeroBytes(word ^ quotes) | zeroBytes(word ^ backslashes)
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < count, bytes[index] != 0x22, bytes[index] != 0x5C { index += 1 }
        return index
    }

    /// The index of the first `"`, `\` or control byte (below 0x20) at or after `from`, or
    /// `bytes.count`: where a strict reader of a string has something to decide.
    /// - Complexity: O(n), a word at a time.
    @inline(__always) static func quoteBackslashOrControl(in bytes: UnsafeRawBufferPointer, from: Int) -> Int {
        var index = from
        let count = bytes.count
        while index + 8 <= count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            // Bytes below 0x20: the borrow trick with 0x20 in place of 0x01 (exact for the lowest).
            let control = (word &- 0x2020_2020_2020_2020) & ~word & highs
            let found = zeroBytes(word ^ quotes) | zeroBytes(word ^ backslashes) | control
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < count, bytes[index] != 0x22, bytes[index] != 0x5C, bytes[index] >= 0x20 { index += 1 }
        return index
    }

    /// The index of the first line feed at or after `from`, or `bytes.count` when there is none.
    /// - Complexity: O(n), a word at a time.
    @inline(__always) static func lineFeed(in bytes: UnsafeRawBufferPointer, from: Int) -> Int {
        var index = from
        let count = bytes.count
        while index + 8 <= count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let found = zeroBytes(word ^ (0x0A &* ones))
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < count, bytes[index] != 0x0A { index += 1 }
        return index
    }

    /// Whether every byte is below 0x80, seen a word at a time.
    /// - Complexity: O(n).
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & highs != 0 { return false }
            index += 8
        }
        while index < bytes.count { if bytes[index] >= 0x80 { return false }; index += 1 }
        return true
    }

    /// The bytes as text, checked as UTF-8; nil when they are not UTF-8. ASCII, which almost
    /// every sign-in string is, is seen a word at a time and needs no other check: the standard
    /// library's validation looked its generic types up at run time for every string.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if isASCII(UnsafeRawBufferPointer(bytes)) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The index just past the `"` that closes the string whose contents start at `from` (after
    /// its opening quote), reading a backslash as escaping the byte after it; nil when the bytes
    /// end first. Nothing else is checked.
    static func end(in bytes: UnsafeRawBufferPointer, contentsFrom from: Int) -> Int? {
        var index = from
        while true {
            index = quoteOrBackslash(in: bytes, from: index)
            guard index < bytes.count else { return nil }
            if bytes[index] == 0x22 { return index + 1 }
            index += 2
        }
    }
}
