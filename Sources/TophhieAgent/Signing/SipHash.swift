/// SipHash-2-4 with a 128-bit output (Aumasson and Bernstein), in pure Swift.
///
/// A keyed hash: without the key nobody can make two inputs share a value. The agent keys the
/// sign-ins it has processed with it, so a poll re-reading its window can recognise them from
/// their bytes; device and app names are attacker-chosen, and an unkeyed hash would let a
/// crafted sign-in pass for one already seen. Gated by the reference implementation's vectors.
public struct SipHash128: Sendable {
    private let k0: UInt64
    private let k1: UInt64

    /// A hasher with the key's two little-endian halves.
    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// A hasher with a 16-byte key, read as the reference reads it (two little-endian words).
    public init(key: [UInt8]) {
        precondition(key.count == 16, "a SipHash key is 16 bytes")
        var k0: UInt64 = 0, k1: UInt64 = 0
        for i in 0..<8 {
            k0 |= UInt64(key[i]) << (8 * UInt64(i))
            k1 |= UInt64(key[8 + i]) << (8 * UInt64(i))
        }
        self.init(k0: k0, k1: k1)
    }

    /// The 128-bit value of `bytes`: the reference's 16 output bytes as two little-endian words,
    /// the first eight bytes in `low`.
    /// - Complexity: O(n), about a byte a cycle.
    public func hash(_ bytes: UnsafeRawBufferPointer) -> (high: UInt64, low: UInt64) {
        var v0 = k0 ^ 0x736f_6d65_7073_6575
        var v1 = k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee
        var v2 = k0 ^ 0x6c79_6765_6e65_7261
        var v3 = k1 ^ 0x7465_6462_7974_6573

        @inline(__always) func round() {
            v0 &+= v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
            v2 &+= v3; v3 = v3.rotatedLeft(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotatedLeft(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
        }

        let count = bytes.count
        let whole = count & ~7
        var offset = 0
        while offset < whole {
            let m = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            v3 ^= m
            round(); round()
            v0 ^= m
            offset += 8
        }
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while offset < count {
            last |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        v3 ^= last
        round(); round()
        v0 ^= last

        v2 ^= 0xee
        round(); round(); round(); round()
        let low = v0 ^ v1 ^ v2 ^ v3
        v1 ^= 0xdd
        round(); round(); round(); round()
        let high = v0 ^ v1 ^ v2 ^ v3
        return (high, low)
    }

    /// The reference's 16 output bytes.
    public func digest(_ bytes: [UInt8]) -> [UInt8] {
        let (high, low) = bytes.withUnsafeBytes { hash($0) }
        return (0..<16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? low : high) >> (8 * UInt64(i % 8))) }
    }
}

extension UInt64 {
    @inline(__always) fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
