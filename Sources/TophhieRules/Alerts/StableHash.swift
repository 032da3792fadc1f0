/// FNV-1a with a 128-bit state: a small, stable, non-cryptographic hash for alert ids.
///
/// Stability is all it needs: the same canonical text must give the same id on every run and
/// platform, so the outbox can drop an alert replayed after a crash.
package enum StableHash {
    /// The 32 lower-case hex digits of FNV-1a-128 over the UTF-8 bytes of `text`.
    public static func fnv1a128(_ text: String) -> String {
        fnv1a128(bytes: text.utf8)
    }

    /// The 32 lower-case hex digits of FNV-1a-128 over `bytes`.
    public static func fnv1a128<Bytes: Sequence>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var state = State()
        state.add(bytes)
        return state.digest
    }

    /// An FNV-1a-128 state that bytes are added to piece by piece.
    package struct State {
        // offset basis 0x6c62272e07bb014262b821756295c58d, prime 2^88 + 2^8 + 0x3b.
        var high: UInt64 = 0x6c62_272e_07bb_0142
        var low: UInt64 = 0x62b8_2175_6295_c58d

        public init() {}

        public mutating func add(_ byte: UInt8) {
            State.step(&high, &low, byte)
        }

        public mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            // Contiguous bytes (a native string's UTF-8) are read through a buffer: stepping a
            // string's UTF-8 view byte by byte cost more than the hash (a tenth of a replay's
            // reading thread, hashing each sign-in's content).
            let done: Void? = bytes.withContiguousStorageIfAvailable { buffer -> Void in
                var high = self.high, low = self.low
                for byte in buffer { State.step(&high, &low, byte) }
                self.high = high
                self.low = low
            }
            if done == nil { for byte in bytes { add(byte) } }
        }

        @inline(__always) static func step(_ high: inout UInt64, _ low: inout UInt64, _ byte: UInt8) {
            low ^= UInt64(byte)
            // (high·2^64 + low) · (2^88 + 0x13b) mod 2^128
            let (carry, product) = low.multipliedFullWidth(by: 0x13b)
            high = high &* 0x13b &+ carry &+ (low << 24)
            low = product
        }

        /// Adds the UTF-8 of `text.lowercased()`: ASCII text lowered byte by byte, without
        /// making the lowered string.
        public mutating func addLowered(_ text: String) {
            let done: Void? = text.utf8.withContiguousStorageIfAvailable { buffer -> Void? in
                guard !buffer.contains(where: { $0 >= 0x80 }) else { return nil }
                var high = self.high, low = self.low
                for byte in buffer { State.step(&high, &low, byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte) }
                self.high = high
                self.low = low
                return ()
            } ?? nil
            if done == nil { add(text.lowercased().utf8) }
        }

        /// Adds a word's eight bytes, least significant first.
        public mutating func add(word: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }

        /// The 32 lower-case hex digits of the state, high word first.
        public var digest: String {
            // Written into the string's own storage: gathered in an array first, each alert's id
            // was two allocations.
            let (high, low) = (self.high, self.low)
            return String(unsafeUninitializedCapacity: 32) { buffer in
                for position in 0..<16 {
                    let shift = UInt64(60 - 4 * position)
                    buffer[position] = StableHash.hexDigits[Int((high >> shift) & 0xF)]
                    buffer[16 + position] = StableHash.hexDigits[Int((low >> shift) & 0xF)]
                }
                return 32
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
