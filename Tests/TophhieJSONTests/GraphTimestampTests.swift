import Foundation
import Testing
import TophhieJSON

@Suite(.timeLimit(.minutes(20))) struct GraphTimestampTests {
    @Test(arguments: [
        ("2020-03-13T19:15:41.6195833Z", 1_584_126_941.6195833),
        ("2020-03-13T19:15:41Z", 1_584_126_941.0),
        ("2020-03-13T19:15:41.5+01:00", 1_584_123_341.5),
        ("1970-01-01T00:00:00Z", 0.0),
        ("2024-02-29T23:59:59.9999999Z", 1_709_251_199.9999999),
    ])
    func parsesGraphForms(text: String, epoch: Double) throws {
        let date = try #require(GraphTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - epoch) < 1e-6)
    }

    @Test(arguments: ["", "2020-03-13", "2020-03-13T19:15:41", "2020-13-13T19:15:41Z", "2020-03-13T19:15:41.Z", "'2020-03-13T19:15:41Z'", "2020-03-13T19:15:41Zjunk", "42", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2100-02-29T00:00:00Z"])
    func rejectsOtherText(text: String) {
        #expect(GraphTimestamp.parse(text) == nil)
    }

    @Test func formatsForFilterAndGraph() {
        // A quarter second is exact in binary; seven digits of an arbitrary fraction are not.
        let date = Date(timeIntervalSince1970: 1_584_126_941.25)
        #expect(GraphTimestamp.filterText(date) == "2020-03-13T19:15:41Z")
        #expect(GraphTimestamp.graphText(date) == "2020-03-13T19:15:41.2500000Z")
        #expect(GraphTimestamp.alertText(date) == "2020-03-13T19:15:41.250Z")
        #expect(GraphTimestamp.parse(GraphTimestamp.graphText(date))!.timeIntervalSince1970 - date.timeIntervalSince1970 < 1e-6)
    }

    /// The digits written by hand are what `String(format:)` wrote: at the edges of years,
    /// fractions and the range written by hand, outside it, and at seeded random instants.
    @Test func formatsAsPrintfDid() {
        func printf(_ date: Date, digits: Int) -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: date)
            let year = c.era == 0 ? 1 - c.year! : c.year!
            let whole = floor(date.timeIntervalSince1970)
            let fraction = digits == 7
                ? min(9_999_999, Int(((date.timeIntervalSince1970 - whole) * 10_000_000).rounded()))
                : min(999_999, Int(((date.timeIntervalSince1970 - whole) * 1_000_000).rounded())) / 1000
            if digits == 0 { return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, c.month!, c.day!, c.hour!, c.minute!, c.second!) }
            return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%0\(digits)dZ", year, c.month!, c.day!, c.hour!, c.minute!, c.second!, fraction)
        }
        // Foundation's calendar is Julian before 1582, ours proleptic Gregorian: compared from
        // 1600 (-11,676,096,000) on; the first instant of year 0 and the last of year -1 below.
        var instants: [Double] = [0, -1, 0.999, 0.9999999, 1_709_251_199.9999999, 951_782_400, 253_402_300_799.5,
                                  -11_676_096_000, 253_402_300_800, 4_102_444_800.0004]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            instants.append(Double(state >> 11) / Double(1 << 53) * 5_000_000_000 - 1_000_000_000)
        }
        #expect(GraphTimestamp.alertText(Date(timeIntervalSince1970: -62_167_219_200)) == "0000-01-01T00:00:00.000Z")
        #expect(GraphTimestamp.alertText(Date(timeIntervalSince1970: -62_167_219_200.001)) == "-001-12-31T23:59:59.999Z")
        // Written quoted by a JSON writer after bytes already there, the year 0 and the year -1
        // among them (and the year 10000, which Foundation writes), past its buffer's room.
        var appended: [UInt8] = Array("x".utf8), expected = "x"
        JSONChunkWriter.appending(to: &appended) { out in
            for instant in instants + [-62_167_219_200, -62_167_219_200.001] {
                let date = Date(timeIntervalSince1970: instant)
                out.time(date)
                expected += "\"" + GraphTimestamp.alertText(date) + "\""
            }
        }
        #expect(String(decoding: appended, as: UTF8.self) == expected)
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            #expect(GraphTimestamp.alertText(date) == printf(date, digits: 3), "\(instant)")
            #expect(GraphTimestamp.graphText(date) == printf(date, digits: 7), "\(instant)")
            #expect(GraphTimestamp.filterText(date) == printf(date, digits: 0), "\(instant)")
        }
    }
}

/// A time written with milliseconds reads back as written, every millisecond of a second (the
/// binary fraction of `45.221` is 45.22099…, and cutting it gave `45.220`).
@Suite struct AlertTextPrecisionTests {
    @Test func everyMillisecondIsWrittenBackAsGiven() throws {
        for base in ["2024-05-01T10:00:45", "2026-12-05T23:59:59", "1999-01-01T00:00:00"] {
            for millis in 0..<1000 {
                let text = base + "." + String(format: "%03d", millis) + "Z"
                let date = try #require(GraphTimestamp.parse(text))
                #expect(GraphTimestamp.alertText(date) == text)
            }
        }
    }

    @Test func sevenDigitsAreCutToTheMillisecondNotRounded() throws {
        let date = try #require(GraphTimestamp.parse("2024-03-01T07:01:42.7269910Z"))
        #expect(GraphTimestamp.alertText(date) == "2024-03-01T07:01:42.726Z")
        let last = try #require(GraphTimestamp.parse("2024-03-01T07:01:42.9994999Z"))
        #expect(GraphTimestamp.alertText(last) == "2024-03-01T07:01:42.999Z")
    }
}
