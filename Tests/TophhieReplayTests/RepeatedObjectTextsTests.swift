import Foundation
import Testing
import TophhieJSON
@testable import TophhieReplay

/// What a column's JSON text read to is handed back only for the very same bytes, and a column
/// whose texts rarely repeat is given up.
@Suite struct RepeatedObjectTextsTests {
    static func reading(_ texts: RepeatedObjectTexts, _ text: String) -> RepeatedObjectTexts.Reading? {
        Array(text.utf8).withUnsafeBytes { texts.reading(of: $0) }
    }

    static func remember(_ texts: RepeatedObjectTexts, _ text: String, _ reading: RepeatedObjectTexts.Reading) {
        Array(text.utf8).withUnsafeBytes { texts.remember($0, reading) }
    }

    @Test func aTextMetAgainGivesWhatItReadTo() throws {
        let texts = RepeatedObjectTexts()
        let device = #"{"operatingSystem":"Windows 10","browser":"Edge 120"}"#
        #expect(Self.reading(texts, device) == nil)
        Self.remember(texts, device, [.string("Windows 10"), .string("Edge 120"), nil])
        let found = try #require(Self.reading(texts, device))
        #expect(found == [.string("Windows 10"), .string("Edge 120"), nil])
        // A text that was not JSON is remembered as such.
        Self.remember(texts, "{not json", nil)
        #expect(Self.reading(texts, "{not json").map { $0 == nil } == true)
    }

    /// With every hash made equal, texts of other bytes (one byte apart, longer, shorter,
    /// differing past the first eight) are never handed another's reading.
    @Test func colludingHashesStillCompareTheBytes() {
        let texts = RepeatedObjectTexts(hashMask: 0)
        let others = [#"{"city":"Oslo"}"#, #"{"city":"Osla"}"#, #"{"city":"Oslo"} "#, #"{"city":"Osl"}"#, #"{"City":"Oslo"}"#, "{}", ""]
        for first in others {
            Self.remember(texts, first, [.string(first)])
            for second in others where second != first {
                #expect(Self.reading(texts, second) == nil, "\(second) was handed \(first)'s reading")
            }
            #expect(Self.reading(texts, first) == .some([.string(first)]))
        }
    }

    /// Texts that never repeat (a place with its own coordinates) are given up after the
    /// trial; texts that do are kept.
    @Test func aColumnOfUniqueTextsIsGivenUp() {
        let unique = RepeatedObjectTexts(), repeating = RepeatedObjectTexts()
        for number in 0..<RepeatedObjectTexts.trial {
            let text = #"{"latitude":\#(number)}"#
            if Self.reading(unique, text) == nil { Self.remember(unique, text, [.int(Int64(number))]) }
            let status = #"{"errorCode":\#(number % 2 == 0 ? 0 : 50126)}"#
            if Self.reading(repeating, status) == nil { Self.remember(repeating, status, [.int(number % 2 == 0 ? 0 : 50126)]) }
        }
        #expect(!unique.remembers)
        #expect(repeating.remembers)
        #expect(Self.reading(repeating, #"{"errorCode":50126}"#) == .some([.int(50126)]))
    }
}
