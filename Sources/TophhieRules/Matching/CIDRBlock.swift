import Foundation

/// An IPv4 or IPv6 network (`10.0.0.0/8`, `2001:db8::/32`) for the `|cidr` modifier.
package struct CIDRBlock: Sendable, Hashable, CustomStringConvertible {
    /// The address as 16 bytes; IPv4 uses the first 4.
    let bytes: [UInt8]
    let prefix: Int
    let isV4: Bool
    public let description: String

    /// Parses `address/prefix`; a bare address is a single host.
    /// - Throws: `RuleCompileError` saying what is wrong.
    public init(_ text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = CIDRBlock.parseAddress(String(parts[0])) else {
            throw RuleCompileError("'\(text)' is not a CIDR block (expected an IPv4 or IPv6 address, then '/' and a prefix length)")
        }
        let maximum = address.isV4 ? 32 : 128
        var prefix = maximum
        if parts.count == 2 {
            guard let p = Int(parts[1]), (0...maximum).contains(p) else {
                throw RuleCompileError("'\(text)' has a prefix length outside 0–\(maximum)")
            }
            prefix = p
        }
        self.bytes = address.bytes
        self.prefix = prefix
        self.isV4 = address.isV4
        self.description = text
    }

    /// Whether `address` (text) lies inside the block; false for text that is not an address.
    public func contains(_ address: String) -> Bool {
        guard let parsed = CIDRBlock.parseAddress(address), parsed.isV4 == isV4 else { return false }
        var remaining = prefix
        for index in 0..<bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if bytes[index] & mask != parsed.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    static func parseAddress(_ text: String) -> (bytes: [UInt8], isV4: Bool)? {
        if text.contains(":") {
            return parseV6(text).map { ($0, false) }
        }
        return parseV4(text).map { ($0, true) }
    }

    static func parseV4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseV6(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseV4(String(piece)) {
                    result.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    result.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}
