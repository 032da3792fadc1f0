import Foundation
import Testing
@testable import TophhieJSON

/// The chunk writer must give exactly the bytes the array writer gives (`JSONWriter`, held to
/// `JSONEncoder`): alert lines are written through it, and their ids and golden hashes stand on
/// those bytes. Its room on the stack is filled, passed and moved on at every offset.
@Suite struct JSONChunkWriterTests {
    /// Strings with every escape at every place, strings longer than the room on the stack (some
    /// of them past it once escaped, six bytes a control character), and the edges of integers,
    /// each after bytes already there, so that pieces fall across the moment the room is full.
    @Test func piecesAreWrittenAsTheArrayWriterWritesThem() {
        let strings = ["", "a", String(repeating: "x", count: 4095), String(repeating: "y", count: 4097),
                       String(repeating: "\u{1}", count: 700), String(repeating: "\u{1}", count: 683) + "z",
                       String(repeating: "é", count: 3000), "native string " + String(repeating: "q", count: 40)]
            + JSONWriterTests.stringsWithEscapes(count: 300, longest: 37, seed: 20_261_207)
        let integers: [Int64] = [0, -1, 9, 10, -10, 99, 100, 1_000_000_000_000_000_000, -999_999_999_999_999_999, .max, .min, .min + 1]
        for lead in [0, 1, 7, 1000, 1023, 1024, 4096] {
            var expected: [UInt8] = Array(repeating: 0x2E, count: lead)
            var written = expected
            JSONChunkWriter.appending(to: &written) { out in
                for (index, text) in strings.enumerated() {
                    out.put("[")
                    out.string(text)
                    out.put(0x2C)
                    out.integer(integers[index % integers.count])
                    out.put(UnsafeRawBufferPointer(start: nil, count: 0))
                    Array("]".utf8).withUnsafeBytes { out.put($0) }
                }
            }
            for (index, text) in strings.enumerated() {
                expected.append(UInt8(ascii: "["))
                JSONWriter.writeString(text, into: &expected)
                expected.append(0x2C)
                JSONWriter.writeInteger(integers[index % integers.count], into: &expected)
                expected.append(UInt8(ascii: "]"))
            }
            #expect(written == expected, "after \(lead) bytes")
        }
    }

    /// A piece longer than the room on the stack goes straight after what was written before it.
    @Test func aPieceLongerThanTheRoomFollowsWhatCameBefore() {
        let long = Array(repeating: UInt8(ascii: "w"), count: 10_000)
        var written: [UInt8] = []
        JSONChunkWriter.appending(to: &written) { out in
            out.put("a")
            long.withUnsafeBytes { out.put($0) }
            out.put("b")
        }
        #expect(written == Array("a".utf8) + long + Array("b".utf8))
    }
}
