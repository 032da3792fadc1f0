import Foundation
import Testing
import TophhieJSON
import TophhieRules
@testable import TophhieAgent

@Suite(.timeLimit(.minutes(20))) struct ControlCharacterEscapingTests {
    @Test(arguments: [
        ("plain device", "plain device"),
        ("evil\u{1b}[2Jclear", #"evil\u{1b}[2Jclear"#),
        ("line\nFAKE ALERT", #"line\nFAKE ALERT"#),
        ("cr\rover", #"cr\rover"#),
        ("tab\there", #"tab\there"#),
        ("del\u{7f}", #"del\u{7f}"#),
        ("c1\u{9b}31m", #"c1\u{9b}31m"#),
        ("nel\u{85}x", #"nel\u{85}x"#),
        ("ls\u{2028}ps\u{2029}", #"ls\u{2028}ps\u{2029}"#),
        ("rlo\u{202e}txt.exe", #"rlo\u{202e}txt.exe"#),
        ("iso\u{2066}x\u{2069}", #"iso\u{2066}x\u{2069}"#),
        ("zw\u{200b}j", #"zw\u{200b}j"#),
        ("nul\u{0}", #"nul\u{0}"#),
        (#"back\slash"#, #"back\\slash"#),
        ("ünïcode 東京", "ünïcode 東京"),
    ])
    func escapes(input: String, expected: String) {
        #expect(ControlCharacterEscaping.escape(input) == expected)
    }

    /// The byte test that lets most lines through unread catches every character that is
    /// escaped: each is written with a byte below 0x20, DEL, or bytes of 0x80 and above.
    @Test func everyEscapedCharacterIsSeenInTheBytes() {
        var escaped = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), ControlCharacterEscaping.needsEscape(scalar) else { continue }
            escaped += 1
            #expect(ControlCharacterEscaping.mayNeedEscape("a" + String(Character(scalar)) + "b"), "U+\(String(value, radix: 16))")
        }
        #expect(escaped > 60)
        #expect(!ControlCharacterEscaping.mayNeedEscape(#"{"a":"plain ASCII ~ \\ \" text"}"#))
        #expect(ControlCharacterEscaping.hardenJSON("{\"a\":\"x\u{2028}y\"}") == #"{"a":"x\u2028y"}"#)
    }

    /// Read eight bytes at a time, the test finds exactly the bytes below 0x20, DEL and those of
    /// 0x80 and above, at every place of a word and in the bytes after the last whole word,
    /// among bytes either side of those bounds.
    @Test func theByteTestSeesEachByteAtEveryPlace() {
        for filler in [UInt8(0x20), 0x21, 0x41, 0x7E] {
            for value in UInt8.min...UInt8.max {
                for place in 0..<21 {
                    var bytes = [UInt8](repeating: filler, count: 21)
                    bytes[place] = value
                    let expected = value < 0x20 || value >= 0x7F
                    let seen = bytes.withUnsafeBytes { ControlCharacterEscaping.mayNeedEscape($0) }
                    #expect(seen == expected, "byte \(value) at \(place) among \(filler)")
                }
            }
        }
    }

    @Test func escapedTextHasNoControlCharacters() {
        var all = ""
        for value in Array(0...0x9F) + [0x2028, 0x2029, 0x202E, 0x2067, 0xFEFF, 0x61C] {
            all.unicodeScalars.append(Unicode.Scalar(UInt32(value))!)
        }
        let escaped = ControlCharacterEscaping.escape(all)
        #expect(!escaped.unicodeScalars.contains(where: ControlCharacterEscaping.needsEscape))
    }

    @Test func hardenedJSONParsesToTheSameValue() throws {
        let value = JSONValue.object(["device": .string("a\u{1b}b\u{85}c\u{2028}d\u{202e}e\u{7f}\n")])
        let raw = String(decoding: value.canonicalData(), as: UTF8.self)
        let hardened = ControlCharacterEscaping.hardenJSON(raw)
        #expect(!hardened.unicodeScalars.contains(where: ControlCharacterEscaping.needsEscape))
        #expect(hardened.contains(#"\u0085"#) && hardened.contains(#"\u202e"#) && hardened.contains(#"\u007f"#))
        #expect(try JSONValue.parse(Data(hardened.utf8)) == value)
    }

    /// A line is ended where it was written, after what the bytes already hold: only its own
    /// bytes are hardened, and a line that needs nothing is left as it is.
    @Test func aLineIsHardenedAndEndedInPlaceAfterEarlierBytes() {
        let earlier = Array("kept \u{2028} as it was\n".utf8)
        var bytes = earlier
        bytes.append(contentsOf: "{\"a\":\"x\u{2028}y\u{85}\"}".utf8)
        ControlCharacterEscaping.endHardenedJSONLine(&bytes, from: earlier.count)
        #expect(String(decoding: bytes, as: UTF8.self) == "kept \u{2028} as it was\n" + #"{"a":"x\u2028y\u0085"}"# + "\n")
        var plain = earlier
        plain.append(contentsOf: #"{"a":"plain \" text"}"#.utf8)
        ControlCharacterEscaping.endHardenedJSONLine(&plain, from: earlier.count)
        #expect(plain == earlier + Array(#"{"a":"plain \" text"}"#.utf8) + [0x0A])
        #expect(ControlCharacterEscaping.hardenedJSONLine(Array("{\"a\":\"\u{202E}\"}".utf8)) == #"{"a":"\u202e"}"# + "\n")
    }

    @Test func prettyPrintedLayoutStaysWhitespace() throws {
        let pretty = "{\n  \"a\" : \"x\u{2028}\\\"\u{85}\",\n  \"b\" : 1\n}"
        let hardened = ControlCharacterEscaping.hardenJSON(pretty)
        #expect(hardened == "{\n  \"a\" : \"x\\u2028\\\"\\u0085\",\n  \"b\" : 1\n}")
        #expect(try JSONValue.parse(Data(hardened.utf8)) == .object(["a": .string("x\u{2028}\"\u{85}"), "b": .int(1)]))
    }
}

/// The notifiers carry the one alert schema, `AlertJSON`, that `replay --format json` prints.
@Suite(.timeLimit(.minutes(20))) struct AlertPayloadTests {
    @Test func schemaAndStableBytes() throws {
        let alert = NotifierTestAlerts.alert(late: true)
        let data = Data(AlertJSON.line(alert).utf8)
        let value = try JSONValue.parse(data)
        #expect(value["id"] == .string("a-1"))
        #expect(value["kind"] == .string("detection"))
        #expect(value["level"] == .string("high"))
        #expect(value.value(atPath: "rule.id") == .string("failed-burst"))
        #expect(value.value(atPath: "rule.tags.1") == .string("attack.t1110"))
        #expect(value.value(atPath: "rule.author") == .string("Tophhie"))
        #expect(value.value(atPath: "group.ipAddress") == .string("203.0.113.9"))
        #expect(value.value(atPath: "events.0") == value.value(atPath: "eventDetails.0.id"))
        #expect(value.value(atPath: "eventDetails.0.time") == .string("2025-12-02T10:00:00.250Z"))
        #expect(value.value(atPath: "eventDetails.0.errorCode") == .int(50126))
        #expect(value.value(atPath: "eventDetails.1.device") == nil, "absent fields are left out")
        #expect(value["firstEventTime"] == .string("2025-12-02T10:00:00.250Z"))
        #expect(value["detectedAt"] == .string("2025-12-02T13:05:00.000Z"))
        #expect(value["late"] == .bool(true))
        #expect(value["lateBySeconds"]?.doubleValue == 10_800)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix(#"{"author":"Tophhie","detectedAt":"#), "keys are sorted")
        #expect(!text.contains("\n"))
    }
}

@Suite(.timeLimit(.minutes(20))) struct StdoutNotifierTests {
    @Test func textLine() async throws {
        let sink = LineSink()
        let notifier = StdoutNotifier(settings: .init(format: .text), write: sink.write)
        try await notifier.deliver(NotifierTestAlerts.alert(late: true))
        #expect(sink.lines == ["2025-12-02T13:05:00.000Z HIGH [failed-burst] Failed sign-in burst: 5 failed sign-ins from 203.0.113.9 in 10m (ipAddress=203.0.113.9) events=2 first=2025-12-02T10:00:00.250Z last=2025-12-02T10:01:00.250Z late-by=3h0m id=a-1\n"])
    }

    @Test func forgedNewlineAndEscapeStayOnOneLine() async throws {
        let sink = LineSink()
        let notifier = StdoutNotifier(write: sink.write)
        let hostile = "x\u{1b}[2J\n2025-12-02T13:05:00.000Z LOW [fake] all clear\u{202e}"
        try await notifier.deliver(NotifierTestAlerts.alert(summary: "failures on \(hostile)"))
        let line = try #require(sink.lines.first)
        #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("\n"))
        #expect(!line.dropLast().unicodeScalars.contains(where: ControlCharacterEscaping.needsEscape))
        #expect(line.contains(#"x\u{1b}[2J\n2025-12-02T13:05:00.000Z LOW [fake] all clear\u{202e}"#))
    }

    @Test func jsonLineIsHardenedAndParses() async throws {
        let sink = LineSink()
        let notifier = StdoutNotifier(settings: .init(format: .jsonLines), write: sink.write)
        let device = "dev\u{1b}]0;owned\u{7}\u{85}\u{2028}"
        try await notifier.deliver(NotifierTestAlerts.alert(device: device))
        let line = try #require(sink.lines.first)
        #expect(line.hasSuffix("\n") && line.filter { $0 == "\n" }.count == 1)
        #expect(!line.dropLast().unicodeScalars.contains(where: ControlCharacterEscaping.needsEscape))
        let value = try JSONValue.parse(Data(line.utf8))
        #expect(value.value(atPath: "eventDetails.0.device") == .string(device))
    }

    @Test(arguments: [(AlertLevel.critical, "\u{1b}[1;31m"), (.high, "\u{1b}[31m"), (.medium, "\u{1b}[33m"), (.low, "\u{1b}[36m")])
    func colourOnlyWhenTold(level: AlertLevel, code: String) {
        let alert = NotifierTestAlerts.alert(level: level)
        let coloured = StdoutNotifier(settings: .init(colour: true), write: { _ in }).render(alert)
        #expect(coloured.hasPrefix(code) && coloured.hasSuffix("\u{1b}[0m"))
        let plain = StdoutNotifier(settings: .init(colour: false), write: { _ in }).render(alert)
        #expect(!plain.contains("\u{1b}"))
    }
}

@Suite(.timeLimit(.minutes(20))) struct NotifierRoutingTests {
    @Test func routeByLevelAndRule() {
        let route = NotifierRoute(minimumLevel: .medium, ruleIDs: ["failed-burst"])
        #expect(route.accepts(NotifierTestAlerts.alert(level: .high)))
        #expect(route.accepts(NotifierTestAlerts.alert(level: .medium)))
        #expect(!route.accepts(NotifierTestAlerts.alert(level: .low)))
        #expect(!route.accepts(NotifierTestAlerts.alert(level: .critical, ruleID: "new-country")))
        #expect(route.accepts(NotifierTestAlerts.alert(level: .high, ruleID: "agent.sign-in-needed", kind: .notice)))
        #expect(!route.accepts(NotifierTestAlerts.alert(level: .low, ruleID: "agent.sign-in-needed", kind: .notice)))
    }

    @Test func routedNotifierSkipsRefusedAlerts() async throws {
        let recorder = RecordingNotifier(name: "rec")
        let routed = RoutedNotifier(recorder, route: NotifierRoute(minimumLevel: .high))
        try await routed.deliver(NotifierTestAlerts.alert(id: "low", level: .low))
        try await routed.deliver(NotifierTestAlerts.alert(id: "crit", level: .critical))
        #expect(await recorder.deliveredIDs == ["crit"])
        #expect(routed.name == "rec")
    }

    @Test func fanOutReportsEachNotifier() async throws {
        let good = RecordingNotifier(name: "good")
        let flaky = RecordingNotifier(name: "flaky")
        await flaky.failNext([.transient("receiver down")])
        let broken = RecordingNotifier(name: "broken")
        await broken.failNext([.permanent("HTTP 404"), .permanent("HTTP 404")])
        let fanOut = NotifierFanOut([good, flaky, broken])
        let results = await fanOut.deliverAll(NotifierTestAlerts.alert())
        #expect(results.map(\.notifier) == ["good", "flaky", "broken"])
        #expect(results.map(\.delivered) == [true, false, false])
        #expect(results[1].error?.isTransient == true)
        #expect(results[2].error?.code == .permanent)
        #expect(await good.deliveredIDs == ["a-1"])

        // As one notifier: a transient failure anywhere makes the whole transient.
        await flaky.failNext([.transient("still down")])
        await #expect(throws: NotifierError.transient("flaky: still down; broken: HTTP 404")) {
            try await fanOut.deliver(NotifierTestAlerts.alert())
        }
        try await NotifierFanOut([good]).deliver(NotifierTestAlerts.alert(id: "a-2"))
        #expect(await good.deliveredIDs == ["a-1", "a-1", "a-2"])
    }
}
