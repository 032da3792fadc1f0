import Foundation
import Testing
@testable import TophhieJSON

/// Numbers with a fraction or an exponent are read by Clinger's fast path where it is exact, or
/// by one exact integer division when their digits pass 2^53, and must then be bit for bit what
/// `Double(String)` (a correctly rounded `strtod`) gives.
@Suite(.timeLimit(.minutes(20))) struct JSONNumberTests {
    static func parsed(_ text: String) throws -> Double? {
        guard case .double(let value) = try JSONValue.parse(Data(text.utf8)) else { return nil }
        return value
    }

    @Test(arguments: [
        "0.0", "-0.0", "0.1", "0.2", "0.3", "1.5", "-8.589684830549615", "41.12133239799196",
        "179.99999999999997", "-90.0", "1e22", "1E+22", "1e23", "1e-22", "1e-23", "123.456e-5", "5e-324",
        "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "9007199254740992.5",
        "9007199254740993.0", "900719925474099.3", "0.000000000000000000001", "0.0000000000000000000001",
        "12345678901234567890.0", "3.14159265358979323846", "1.0e0", "2.5E-3", "-7.0e+2",
        // Past 2^53, divided: Graph's coordinates, halfway cases (to even, both ways), the
        // largest integer of 19 digits, a carry into a new power of two.
        "47.68050003051758", "-122.13129425048828", "51.504119764363644", "-0.08460799769404467",
        "4503599627370496.5", "4503599627370497.5", "4503599627370496.50000001", "9999999999999999999.0",
        "0.9999999999999999999", "9007199254740993.0e-3", "1.8446744073709551615", "9.999999999999999e-1",
    ])
    func edgesAgreeWithStrtod(_ text: String) throws {
        try Self.expectStrtodsBits(text)
    }

    /// The parsed number is bit for bit what `Double(String)` gives.
    static func expectStrtodsBits(_ text: String) throws {
        let expected = try #require(Double(text))
        let value = try #require(try Self.parsed(text))
        #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) against \(expected)")
    }

    /// A fixed sequence (Knuth's MMIX multiplier), so a failure repeats.
    struct Sequence {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
    }

    @Test func randomDecimalsAgreeWithStrtod() throws {
        var sequence = Sequence(state: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { sequence.next() }
        var fast = 0
        for _ in 0..<20_000 {
            let digits = String(next() % 100_000_000_000_000_000)
            let point = Int(next() % UInt64(digits.count + 1))
            var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if text.hasPrefix(".") { text = "0" + text }
            if text.hasSuffix(".") { text += "0" }
            if next() % 3 == 0 { text += "e\(Int(next() % 40) - 20)" }
            if next() % 2 == 0 { text = "-" + text }
            try Self.expectStrtodsBits(text)
            if text.utf8.withContiguousStorageIfAvailable({ JSONParser.exactDouble($0) }) != nil { fast += 1 }
        }
        #expect(fast > 5_000, "the fast path is taken often enough for the agreement to mean something (\(fast))")
    }

    /// Digits past 2^53 (16 to 19 of them, as Graph writes coordinates) over a power of ten.
    @Test func longDecimalsAgreeWithStrtod() throws {
        var sequence = Sequence(state: 0x2545_F491_4F6C_DD1D)
        func next() -> UInt64 { sequence.next() }
        var divided = 0
        for _ in 0..<20_000 {
            let length = 16 + Int(next() % 4)
            var digits = String(1 + next() % 9)
            while digits.count < length { digits += String(next() % 10) }
            let point = 1 + Int(next() % UInt64(length - 1))
            var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if next() % 4 == 0 { text = "0." + digits }
            if next() % 2 == 0 { text = "-" + text }
            try Self.expectStrtodsBits(text)
            let mantissa = UInt64(digits) ?? 0
            if mantissa > 1 << 53, text.utf8.withContiguousStorageIfAvailable({ JSONParser.exactDouble($0) }) != nil { divided += 1 }
        }
        #expect(divided > 10_000, "the division is taken often enough for the agreement to mean something (\(divided))")
    }
}

/// Eight ASCII digits read as one word name the number `UInt64(String)` reads; a word with any
/// other byte anywhere names none.
@Suite struct EightDigitsTests {
    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    @Test func digitsNameTheirNumber() {
        var sequence = JSONNumberTests.Sequence(state: 0x0123_4567_89AB_CDEF)
        var texts = ["00000000", "99999999", "12345678", "87654321", "00000001", "10000000"]
        for _ in 0..<5_000 { texts.append(String(format: "%08llu", sequence.next() % 100_000_000)) }
        for text in texts {
            #expect(JSONParser.eightDigits(Self.word(Array(text.utf8))) == UInt64(text), "\(text)")
        }
    }

    @Test func anyOtherByteNamesNone() {
        for place in 0..<8 {
            for byte: UInt8 in [0x00, 0x20, 0x2B, 0x2D, 0x2E, 0x2F, 0x3A, 0x3F, 0x40, 0x45, 0x65, 0x70, 0x7F, 0x80, 0xB0, 0xB5, 0xF9, 0xFF] {
                var bytes = Array("12345678".utf8)
                bytes[place] = byte
                #expect(JSONParser.eightDigits(Self.word(bytes)) == nil, "byte \(byte) at \(place)")
            }
        }
    }
}
