import Testing
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

/// `EngineRun.isPlain` reads eight bytes at a time: it must answer as a byte-by-byte test does
/// for every byte at every place, at every length around a word's.
@Suite struct PlainTextTests {
    static func byByte(_ text: String) -> Bool {
        !text.utf8.contains { $0 >= 0x80 || ($0 >= 0x41 && $0 <= 0x5A) }
    }

    @Test func everyByteAtEveryPlaceIsSeen() {
        var checked = 0, plain = 0
        for length in 1...19 {
            for place in 0..<length {
                for byte in UInt8(0)...UInt8(0x7F) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[place] = byte
                    let text = String(decoding: bytes, as: UTF8.self)
                    #expect(EngineRun.isPlain(text) == Self.byByte(text), "byte \(byte) at \(place) of \(length)")
                    checked += 1
                    if Self.byByte(text) { plain += 1 }
                }
            }
        }
        #expect(checked > 20_000 && plain > 0 && plain < checked)
        for text in ["", "é", "abcdefgh\u{E9}", "7c1f0c4e-0000-4000-8000-000000000398", "7C1F0C4E-0000-4000-8000-000000000398",
                     "person397@contoso.com", "Person397@contoso.com", "@[`{", "AZ", "az"] {
            #expect(EngineRun.isPlain(text) == Self.byByte(text), "\(text)")
        }
    }
}
