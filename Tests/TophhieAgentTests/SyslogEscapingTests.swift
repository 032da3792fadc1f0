import Foundation
import Testing
@testable import TophhieAgent

@Suite struct SyslogEscapingTests {
    /// A quote or bracket followed by a combining mark is one Character but still a bare byte on
    /// the wire; it must be escaped all the same.
    @Test func combiningMarksCannotHideAQuoteOrBracket() {
        let hostile = "x\"\u{301}]\u{301} [fake@1 level=\"low\"\u{301}"
        let escaped = SyslogMessage.paramValue(hostile)
        let bytes = Array(escaped.utf8)
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "]") {
            #expect(index > 0 && bytes[index - 1] == UInt8(ascii: "\\"), "unescaped \(Character(UnicodeScalar(byte))) at byte \(index)")
        }
    }
}
