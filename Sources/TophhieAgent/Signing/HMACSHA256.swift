/// HMAC with SHA-256 (RFC 2104), checked against RFC 4231.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    ///
    /// Keys longer than the 64-byte block are hashed first, as RFC 2104 requires.
    /// - Complexity: O(key + message).
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var blockKey = key.count > SHA256.blockByteCount ? SHA256.hash(key) : key
        blockKey.append(contentsOf: [UInt8](repeating: 0, count: SHA256.blockByteCount - blockKey.count))
        var inner = SHA256()
        inner.update(blockKey.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(blockKey.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
