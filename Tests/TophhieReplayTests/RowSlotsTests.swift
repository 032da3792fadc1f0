import Foundation
import Testing
import TophhieJSON
import TophhieTestSupport
@testable import TophhieReplay

/// A Log Analytics row read straight into slots (`RowSlots`) is held to the mapping it stands
/// in for: whatever it reads is what `ExportRecord.fromLogAnalytics` makes of the same row, read
/// the way it was read before (`ExportReading.row`, then `mapped`), path by path; and a row it
/// does not read so, it says so (nil) rather than guessing.
@Suite struct RowSlotsTests {
    /// Paths a replay asks of a row: the quick check's, an engine's with whole objects, and one
    /// with names lowering changes and places in lists.
    static let pathSets: [[[String]]] = [
        ExportConversion.quickPaths,
        [["id"], ["createdDateTime"], ["status", "errorCode"], ["status", "failureReason"], ["location", "city"], ["location", "countryOrRegion"],
         ["deviceDetail", "operatingSystem"], ["deviceDetail", "isCompliant"], ["appDisplayName"], ["isInteractive"], ["ipAddress"],
         ["userPrincipalName"]] + ReadingSlots.coordinates,
        [["id"], ["createdDateTime"], ["status"], ["location"], ["deviceDetail", "browser"], ["signInEventTypes"], ["signInEventTypes", "0"],
         ["deviceDetail", "AdditionalProperties"], ["location", "geoCoordinates"], ["status", "additionalDetails", "kind"], ["isInteractive"]],
    ]

    enum ReadingSlots {
        static let coordinates = ExportReading.coordinatePaths
    }

    /// The usual row of Microsoft's `SigninLogs` documentation, objects as objects.
    static let usual = #"""
    {"TimeGenerated":"2024-05-01T10:00:01Z","Type":"SigninLogs","Id":"a1","CreatedDateTime":"2024-05-01T10:00:00.5Z","AppDisplayName":"Azure Portal","IPAddress":"81.2.69.58","IsInteractive":true,"UserPrincipalName":"p@contoso.com","Status":{"errorCode":50126,"failureReason":"Invalid password","additionalDetails":null},"DeviceDetail":{"deviceId":"","operatingSystem":"Windows 10","browser":"Edge","isCompliant":null},"LocationDetails":{"city":"London","state":"England","countryOrRegion":"GB","geoCoordinates":{"latitude":51.5,"longitude":-0.1}},"Location":"GB","ResultType":"50126","ResultDescription":"Invalid password"}
    """#

    /// Each path's value as the mapping makes it, read as before: the row parsed for the
    /// columns of the paths' members, mapped whole.
    static func mapped(_ text: String, _ paths: [[String]]) throws -> [JSONValue?] {
        let reading = ExportReading(format: .logAnalytics, shape: .json(columnNames: nil), members: Set(paths.map { $0[0] }))
        let record = try Array(text.utf8).withUnsafeBytes { reading.mapped(try reading.row($0)) }
        return paths.map { record.value(at: $0) }
    }

    static func slotted(_ text: String, _ paths: [[String]]) -> [JSONValue?]? {
        let reading = ExportReading(format: .logAnalytics, shape: .json(columnNames: nil), members: Set(paths.map { $0[0] })).withRowSlots(paths)
        return Array(text.utf8).withUnsafeBytes { reading.rowValues($0) }
    }

    @Test func theUsualRowIsReadStraightAndAsTheMappingReadsIt() throws {
        for paths in Self.pathSets {
            let values = try #require(Self.slotted(Self.usual, paths), "\(paths)")
            #expect(values == (try Self.mapped(Self.usual, paths)), "\(paths)")
        }
        let quick = try #require(Self.slotted(Self.usual, ExportConversion.quickPaths))
        #expect(quick == [.string("a1"), .string("2024-05-01T10:00:00.5Z"), .int(50126), .double(51.5), .double(-0.1)])
    }

    /// Rows the straight reading must not guess at: it reads none of them.
    static let declined: [(String, String)] = [
        ("a name inside an object that lowers onto one read", #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":{"errorCode":0,"ErrorCode":1}}"#),
        ("the same, written with an escape", #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":{"\u0045rrorCode":1}}"#),
        ("the same, in JSON text", #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":"{\"ErrorCode\":1}"}"#),
        ("two columns that become one member", #"{"Id":"a1","id":"a2","CreatedDateTime":"2024-05-01T10:00:00Z","Status":{"errorCode":0}}"#),
        ("a portal name", #"{"Id":"a1","TimeGenerated [UTC]":"2024-05-01T10:00:00Z","Status":{"errorCode":0}}"#),
        ("a dynamic column", #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status_dynamic":{"errorCode":0}}"#),
        ("a name past ASCII that lowers onto one read", "{\"Id\":\"a1\",\"CreatedDateTime\":\"2024-05-01T10:00:00Z\",\"LocationDetails\":{\"geoCoordinates\":{\"latitude\":1,\"longitude\":2}},\"DeviceDetail\":{\"\u{212A}ind\":1},\"Status\":{\"additionalDetails\":{\"\u{212A}ind\":3}}}"),
        ("a name past ASCII in JSON text", "{\"Id\":\"a1\",\"CreatedDateTime\":\"2024-05-01T10:00:00Z\",\"Status\":\"{\\\"errorCode\\\":0,\\\"\\\\u212Aind\\\":1}\"}"),
        ("a surrogate escape in JSON text", #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":"{\"errorCode\":0,\"x\":\"\\ud800\"}"}"#),
        ("an escape that may spell a portal name", #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":{"errorCode":0},"TimeGenerated \u005bUTC]":"x"}"#),
    ]

    @Test func rowsItCannotReadAsTheMappingDoesAreLeftToIt() throws {
        let paths = Self.pathSets[0] + [["deviceDetail", "kind"], ["status", "additionalDetails", "kind"]]
        for (reason, text) in Self.declined {
            #expect(Self.slotted(text, paths) == nil, "\(reason)")
            // The mapping still reads every one of them.
            _ = try Self.mapped(text, paths)
        }
    }

    /// Rows unlike the usual one that the straight reading reads, each as the mapping does.
    static let odd: [String] = [
        #"{"Id":"a1","CreatedDateTime":"/Date(1714557600000)/","Status":"{\"errorCode\":\"50126\"}","ResultType":"0"}"#,
        #"{"Id":"a1","TimeGenerated":"5/1/2024, 10:00:00.123 AM","ResultType":"50126","ResultDescription":"bad","Category":"NonInteractiveUserSignInLogs"}"#,
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":"Success","LocationDetails":"  ","DeviceDetail":"[1,2]"}"#,
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":"{not json","LocationDetails":"{\"city\":\"Paris\"} ","DeviceDetail":{"isCompliant":"True","browser":{"Name":"Edge"}}}"#,
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":[{"errorCode":1}],"Location":{"city":"Oslo"},"IsInteractive":"false"}"#,
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Status":{"errorCode":0,"AdditionalProperties":{"x":1}},"LocationDetails":{"geoCoordinates":{"latitude":95,"longitude":0}}}"#,
        #"{"Id":"a\u0031","CreatedDateTime":"2024-05-01T10:00:00Z","AppDisplayName":"Caf\u00e9","Other":{"\u004bind":1},"Status":{"errorCode":0}}"#,
        #"{"Id":7,"CreatedDateTime":null,"Status":{"errorCode":1.5,"errorCode":2},"LocationDetails":{"city":"A","city":"B"},"SignInEventTypes":"[\"interactiveUser\"]"}"#,
    ]

    @Test func oddRowsAreReadAsTheMappingReadsThem() throws {
        var read = 0
        for text in Self.odd {
            for paths in Self.pathSets {
                guard let values = Self.slotted(text, paths) else { continue }
                read += 1
                #expect(values == (try Self.mapped(text, paths)), "\(text) \(paths)")
            }
        }
        #expect(read == Self.odd.count * Self.pathSets.count)
    }

    /// Rows made at random from the columns, names and shapes exports write, and from the
    /// mistakes hostile ones make: each read straight is read as the mapping reads it, and most
    /// are read straight; read one after another through one thread's memory (its member order,
    /// strings and buffers, kept from row to row, whichever rows were declined), each reads as
    /// it does alone.
    @Test func randomRowsAreReadAsTheMappingReadsThem() throws {
        var random = SeededGenerator(seed: 46)
        let texts = (0..<600).map { _ in Self.randomRow(&random) }
        var read = 0
        for paths in Self.pathSets {
            let reading = ExportReading(format: .logAnalytics, shape: .json(columnNames: nil), members: Set(paths.map { $0[0] })).withRowSlots(paths)
            let memory = try #require(reading.rowMemory())
            for text in texts {
                let remembered = Array(text.utf8).withUnsafeBytes { reading.rowValues($0, memory: memory) }
                #expect(remembered == Self.slotted(text, paths), "\(text) \(paths)")
                guard let values = remembered else { continue }
                read += 1
                #expect(values == (try Self.mapped(text, paths)), "\(text) \(paths)")
            }
        }
        #expect(read > texts.count * Self.pathSets.count / 2)
    }

    static func randomRow(_ random: inout SeededGenerator) -> String {
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
        func maybe(_ chance: Double = 0.5) -> Bool { Double.random(in: 0..<1, using: &random) < chance }
        func object(_ names: [String], _ value: () -> JSONValue) -> JSONValue {
            var members: [String: JSONValue] = [:]
            for name in names where maybe(0.7) { members[name] = value() }
            return .object(members)
        }
        func asText(_ value: JSONValue) -> JSONValue { .string(String(decoding: value.canonicalData(), as: UTF8.self)) }
        func dynamic(_ value: JSONValue) -> JSONValue {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5: return value
            case 5..<8: return asText(value)
            case 8: return pick([.null, .string(""), .string("Success"), .array([value])])
            default: return .string(" " + (asText(value).stringValue ?? "") + " ")
            }
        }
        var row: [String: JSONValue] = [:]
        row[maybe(0.95) ? "Id" : "id"] = maybe(0.95) ? .string("r\(Int.random(in: 0..<99, using: &random))") : pick([.int(3), .string("")])
        if maybe(0.9) { row["CreatedDateTime"] = .string(pick(["2024-05-01T10:00:00Z", "2024-05-01T10:00:00.1234567Z", "/Date(1714557600000)/", "yesterday"])) }
        if maybe() { row["TimeGenerated"] = .string(pick(["2024-05-01T10:00:02Z", "5/1/2024, 1:00:00 PM"])) }
        if maybe() { row["ResultType"] = pick([.string("0"), .string("50126"), .string("x"), .int(1)]) }
        if maybe(0.3) { row["ResultDescription"] = pick([.string("bad"), .null]) }
        if maybe() { row[maybe() ? "Type" : "Category"] = .string(pick(["SigninLogs", "AADNonInteractiveUserSignInLogs", "Other"])) }
        if maybe(0.9) {
            row["Status"] = dynamic(object(["errorCode", "failureReason", "additionalDetails"] + (maybe(0.1) ? ["ErrorCode"] : [])) {
                pick([.int(0), .int(50126), .string("50126"), .null, .string("Bad"), .object(["kind": .int(1)])])
            })
        }
        if maybe(0.9) {
            let coordinates = object(["latitude", "longitude"] + (maybe(0.05) ? ["Latitude"] : [])) { pick([.double(51.5), .double(-0.1), .int(95), .null]) }
            row["LocationDetails"] = dynamic(object(["city", "countryOrRegion", "state"] + (maybe(0.05) ? ["City"] : [])) {
                pick([.string("London"), .string("GB"), .null])
            }.merging(["geoCoordinates": coordinates]))
        }
        if maybe(0.3) { row["Location"] = pick([.string("GB"), .object(["city": .string("Oslo")])]) }
        if maybe(0.8) {
            row["DeviceDetail"] = dynamic(object(["operatingSystem", "browser", "isCompliant", "deviceId"] + (maybe(0.05) ? ["Browser", "AdditionalProperties"] : [])) {
                pick([.string("Windows 10"), .string("true"), .string("False"), .bool(true), .null])
            })
        }
        if maybe() { row["AppDisplayName"] = .string(pick(["Azure Portal", "Office"])) }
        if maybe() { row[maybe(0.9) ? "IPAddress" : "ipAddress"] = .string("81.2.69.58") }
        if maybe() { row["IsInteractive"] = pick([.bool(true), .string("false"), .string("x")]) }
        if maybe(0.3) { row["SignInEventTypes"] = dynamic(.array([.string("interactiveUser")])) }
        if maybe(0.2) { row["UserPrincipalName"] = .string("p@contoso.com") }
        if maybe(0.03) { row["TimeGenerated [UTC]"] = .string("2024-05-01T10:00:00Z") }
        if maybe(0.03) { row["DeviceDetail_dynamic"] = .object(["browser": .string("Edge")]) }
        return String(decoding: JSONValue.object(row).canonicalData(), as: UTF8.self)
    }

    /// A CSV row's fields read straight are read as the mapping reads the row.
    @Test func csvRowsAreReadAsTheMappingReadsThem() throws {
        let header = ["TimeGenerated [UTC]", "Id", "CreatedDateTime [UTC]", "Status", "Status_dynamic", "LocationDetails", "DeviceDetail", "ResultType", "Type", "AppDisplayName"]
        let rows: [[String]] = [
            ["5/1/2024, 10:00:00.123 AM", "a1", "", "Failure", #"{"errorCode":50126}"#, #"{"city":"London","geoCoordinates":{"latitude":51.5,"longitude":-0.1}}"#, #"{"isCompliant":"true"}"#, "50126", "SigninLogs", "Office"],
            ["2024-05-01T10:00:00Z", "a2", "2024-05-01T09:59:00Z", "", "", " ", "[]", "0", "AADNonInteractiveUserSignInLogs", ""],
            ["2024-05-01T10:00:00Z", "a3", "", "", #"{"ErrorCode":1}"#, #"{"City":"Oslo"}"#, "{not json", "x", "", "Office"],
            // JSON text read from its bytes, and text the mapping trims first.
            ["2024-05-01T10:00:00Z", "a4", "", "", #"{"errorCode":0} "#, " {\"city\":\"Z\u{FC}rich\",\"geoCoordinates\":{\"latitude\":47.4}}", #"{"browser":"Edge"}"#, "0", "SigninLogs", "Office"],
            ["2024-05-01T10:00:00Z", "a5", "", "", #"{"errorCode":50126,"failureReason":"x"}"#, "{\"city\":\"Z\u{FC}rich\",\"geoCoordinates\":{\"longitude\":8.5}}", "{}", "50126", "SigninLogs", "Office"],
        ]
        // A field of JSON text whose bytes are not UTF-8: made text, they read as U+FFFD.
        var notUTF8 = CSVFields(rows[4])
        notUTF8 = CSVFields(bytes: notUTF8.bytes[..<notUTF8.ends[4]] + Array("{\"city\":\"".utf8) + [0xFF, 0x22, 0x7D] + notUTF8.bytes[notUTF8.ends[5]...],
                            ends: notUTF8.ends.enumerated().map { $0.offset < 5 ? $0.element : $0.element + 12 - (notUTF8.ends[5] - notUTF8.ends[4]) })
        #expect(notUTF8[5] == "{\"city\":\"\u{FFFD}\"}")
        // And in a long field of plain text, read twice through one thread's buffers.
        let app = CSVFields(rows[4])
        let longApp = CSVFields(bytes: app.bytes[..<app.ends[8]] + Array("Office 365 ".utf8) + [0xFF] + Array(" Online".utf8), ends: app.ends.dropLast() + [app.ends[8] + 19])
        #expect(longApp[9] == "Office 365 \u{FFFD} Online")
        var read = 0
        for paths in Self.pathSets {
            let reading = ExportReading(format: .csv, shape: .csv(header: header, nonInteractive: false), members: Set(paths.map { $0[0] }))
            let slotted = reading.withRowSlots(paths)
            let memory = try #require(slotted.rowMemory())
            for fields in rows.map(CSVFields.init) + [notUTF8, longApp, longApp] {
                let mapped = try reading.record(fields: fields, line: 2).mapped
                // Through a thread's buffers, kept from row to row, as alone.
                #expect(slotted.rowValues(fields: fields, memory: memory) == slotted.rowValues(fields: fields), "\(fields) \(paths)")
                guard let values = slotted.rowValues(fields: fields) else { continue }
                read += 1
                #expect(values == paths.map { mapped.value(at: $0) }, "\(fields) \(paths)")
            }
        }
        #expect(read >= 2 * Self.pathSets.count)
    }
}

private extension JSONValue {
    func merging(_ more: [String: JSONValue]) -> JSONValue {
        guard case .object(var members) = self else { return self }
        for (name, value) in more { members[name] = value }
        return .object(members)
    }
}

extension CSVFields {
    /// The fields of a row written as `strings` are.
    init(_ strings: [String]) {
        var bytes: [UInt8] = [], ends: [Int] = []
        for field in strings {
            bytes += Array(field.utf8)
            ends.append(bytes.count)
        }
        self.init(bytes: bytes, ends: ends)
    }
}
