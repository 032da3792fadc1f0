import Foundation
import Testing
import TophhieJSON
import TophhieTestSupport
@testable import TophhieReplay

/// Exports read as Graph's records (`Tests/Contracts/exports`, sources in its README): every
/// format gives the same sign-ins, skips the same record the live poll skips, and drops the
/// same impossible coordinates.
@Suite struct ExportFormatTests {
    static func fixture(_ name: String) -> String {
        RepositoryFiles.root.appendingPathComponent("Tests/Contracts/exports").appendingPathComponent(name).path
    }

    static func records(_ conversion: ExportConversion) throws -> [JSONValue] {
        let text = try String(contentsOfFile: conversion.path, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONValue.parse(Data($0.utf8)) }
    }

    @Test(arguments: [
        ("log-analytics-signinlogs.json", ExportFormat.logAnalytics, "item 8"),
        ("log-analytics-signinlogs.csv", .csv, "line 9"),
        ("graph-powershell.json", .logAnalytics, "item 8"),
    ])
    func everyFormatGivesTheSameSignIns(_ file: String, _ format: ExportFormat, _ badPlace: String) throws {
        let conversion = try #require(try ExportConversion.convert(file: Self.fixture(file), format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { conversion.remove() }
        #expect(conversion.format == format)
        #expect(conversion.records == 7 && conversion.coordinatesDropped == 1)
        #expect(conversion.skipped == ["\(Self.fixture(file)) \(badPlace) (la000008-0000-4000-8000-000000000000): skipped, as the agent skips it: 'status.errorCode' is missing or not a whole number"])
        let records = try Self.records(conversion)
        #expect(records.map { $0["id"]?.stringValue ?? "" } == (1...7).map { String(format: "la%06d-0000-4000-8000-000000000000", $0) })
        #expect(records.map { $0.value(atPath: "status.errorCode") } == Array(repeating: JSONValue.int(50126), count: 5) + [.int(0), .int(0)])
        #expect(records.first?["createdDateTime"]?.stringValue.flatMap(GraphTimestamp.parse) == GraphTimestamp.parse("2024-05-01T03:00:10.123Z"))
        #expect(records.map { $0["createdDateTime"]?.stringValue.flatMap(GraphTimestamp.parse) != nil } == Array(repeating: true, count: 7))
        #expect(records[5].value(atPath: "location.geoCoordinates") == .object([:]), "latitude 125.16 is no place")
        #expect(records[5].value(atPath: "location.city") == .string("London"))
        #expect(records[6]["isInteractive"] == .bool(false))
        if format != .logAnalytics || file.hasPrefix("log") { #expect(records[6]["signInEventTypes"] == .array([.string("nonInteractiveUser")])) }
        #expect(records[6]["originalTransferMethod"] == .string("deviceCodeFlow"))
        #expect(records[0]["isInteractive"] == .bool(true))
        #expect(records[0].value(atPath: "deviceDetail.operatingSystem") == .string("Linux"))
    }

    @Test func azureMonitorsDocumentedRecordIsItsProperties() throws {
        let conversion = try #require(try ExportConversion.convert(file: Self.fixture("azure-monitor-records.json"), format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { conversion.remove() }
        #expect(conversion.format == .azureMonitor && conversion.records == 1 && conversion.skipped.isEmpty)
        let record = try #require(try Self.records(conversion).first)
        #expect(record["id"] == .string("0231f922-93fa-4005-bb11-b344eca03c01"))
        #expect(record.value(atPath: "status.errorCode") == .int(50140))
        #expect(record["signInEventTypes"] == .array([.string("interactiveUser")]))
        #expect(record.value(atPath: "location.countryOrRegion") == .string("US"))
    }

    /// The admin center's download is Graph's own shape: nothing to convert, nothing skipped.
    @Test func theAdminCentersDownloadIsGraphsShape() throws {
        let file = Self.fixture("admin-center-download.json")
        #expect(ExportFormat.detect(try Data(contentsOf: URL(fileURLWithPath: file))) == .graph)
        #expect(try ExportConversion.convert(file: file, format: nil, strict: true, scratch: NSTemporaryDirectory()) == nil)
    }

    /// The admin center's CSV download: the portal's column names (with their stray spaces and a
    /// repeated column), words for Graph's enumerations, an empty code for a success, and the
    /// stream from the file's name.
    @Test func theAdminCentersCSVDownloadGivesTheSameSignIns() throws {
        let interactive = try #require(try ExportConversion.convert(file: Self.fixture("InteractiveSignIns_2024-05-01_2024-05-02.csv"), format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { interactive.remove() }
        #expect(interactive.format == .adminCenterCSV)
        #expect(interactive.records == 6 && interactive.coordinatesDropped == 0)
        #expect(interactive.skipped == ["\(Self.fixture("InteractiveSignIns_2024-05-01_2024-05-02.csv")) line 8 (la000008-0000-4000-8000-000000000000): skipped, as the agent skips it: 'status.errorCode' is missing or not a whole number"])
        let records = try Self.records(interactive)
        #expect(records.map { $0["id"]?.stringValue ?? "" } == (1...6).map { String(format: "la%06d-0000-4000-8000-000000000000", $0) })
        #expect(records.map { $0.value(atPath: "status.errorCode") } == Array(repeating: JSONValue.int(50126), count: 5) + [.int(0)])
        #expect(records[0]["createdDateTime"] == .string("2024-05-01T03:00:10Z"))
        #expect(records[0]["appId"] == .string("4765445b-32c6-49b0-83e6-1d93765276ca"), "the header 'Application ID ' has a trailing space")
        #expect(records[0]["autonomousSystemNumber"] == .int(36873), "the header 'Autonomous system  number' has two spaces")
        #expect(records[0]["conditionalAccessStatus"] == .string("notApplied"))
        #expect(records[0]["authenticationRequirement"] == .string("singleFactorAuthentication"))
        #expect(records[0]["incomingTokenType"] == .string("none"))
        #expect(records[0].value(atPath: "deviceDetail.operatingSystem") == .string("Linux"))
        #expect(records[0].value(atPath: "deviceDetail.isCompliant") == .bool(false))
        #expect(records[0].value(atPath: "location.countryOrRegion") == .string("NG"))
        #expect(records[5].value(atPath: "location.city") == .string("London"))
        #expect(records[0]["isInteractive"] == .bool(true))
        #expect(records[0]["signInEventTypes"] == .array([.string("interactiveUser")]))

        let other = try #require(try ExportConversion.convert(file: Self.fixture("NonInteractiveSignIns_2024-05-01_2024-05-02.csv"), format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { other.remove() }
        let redeemed = try #require(try Self.records(other).first)
        #expect(other.records == 1 && other.skipped.isEmpty)
        #expect(redeemed["isInteractive"] == .bool(false))
        #expect(redeemed["signInEventTypes"] == .array([.string("nonInteractiveUser")]))
        #expect(redeemed["originalTransferMethod"] == .string("deviceCodeFlow"), "written 'Device code flow'")
    }

    @Test(arguments: [
        ("Lagos, Lagos, NG", ["city": "Lagos", "state": "Lagos", "countryOrRegion": "NG"]),
        ("London, GB", ["city": "London", "state": "", "countryOrRegion": "GB"]),
        ("NG", ["city": "", "state": "", "countryOrRegion": "NG"]),
    ])
    func adminCenterLocationsAreSplit(_ text: String, _ parts: [String: String]) {
        var expected = parts.mapValues(JSONValue.string)
        expected["geoCoordinates"] = .object([:])
        #expect(ExportRecord.adminCenterLocation(text) == .object(expected))
        #expect(ExportRecord.adminCenterLocation(" ") == nil)
    }

    /// A Graph page is checked without reading each record whole: a clean one is left to the
    /// fast ways; otherwise the records kept are written as they were (a pretty-printed one
    /// with its lines, an error code as text as it was), those with coordinates no place has
    /// rewritten without them.
    @Test func aGraphPageIsCheckedAndOnlyWhatTheDecoderRefusesIsLeftOut() throws {
        func record(_ id: String, status: String = #"{"errorCode": 0}"#, latitude: String = "51.5") -> String {
            "{\n  \"id\": \"\(id)\",\n  \"createdDateTime\": \"2024-05-01T10:00:00.221Z\",\n  \"status\": \(status),\n  \"location\": {\"city\": \"London\", \"geoCoordinates\": {\"latitude\": \(latitude), \"longitude\": -0.12}}\n}"
        }
        let clean = try RepositoryFiles.temporary("clean-page.json", "{\"value\": [\(record("a")), \(record("b", status: #"{"errorCode": "50126"}"#))]}")
        defer { RepositoryFiles.remove(clean) }
        #expect(try ExportConversion.convert(file: clean, format: nil, strict: false, scratch: NSTemporaryDirectory()) == nil)

        let mixed = try RepositoryFiles.temporary("mixed-page.json", "{\"value\": [\(record("a")), \(record("swapped", latitude: "125.16")), \(record("nocode", status: "{}")), \(record("text", status: #"{"errorCode": "50126"}"#))]}")
        defer { RepositoryFiles.remove(mixed) }
        let conversion = try #require(try ExportConversion.convert(file: mixed, format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { conversion.remove() }
        #expect(conversion.records == 3 && conversion.coordinatesDropped == 1)
        #expect(conversion.skipped == ["\(mixed) item 3 (nocode): skipped, as the agent skips it: 'status.errorCode' is missing or not a whole number"])
        let written = try String(contentsOfFile: conversion.path, encoding: .utf8)
        #expect(written.hasPrefix("[\(record("a")),\n"), "kept as written")
        #expect(written.hasSuffix(",\n\(record("text", status: #"{"errorCode": "50126"}"#))]\n"))
        guard case .array(let kept) = try JSONValue.parse(Data(written.utf8)) else { Issue.record("not an array"); return }
        #expect(kept.map { $0["id"]?.stringValue ?? "" } == ["a", "swapped", "text"])
        #expect(kept[1].value(atPath: "location.geoCoordinates") == .object([:]))
        #expect(kept[1].value(atPath: "location.city") == .string("London"))
    }

    /// A Graph file too large to hold is checked the same way through a window (records cut
    /// apart by it): the same records left out, the others copied as they were.
    @Test func aLargeGraphFileIsCheckedThroughAWindow() throws {
        func record(_ id: String, status: String = #"{"errorCode": 0}"#, latitude: String = "51.5", app: String = "App") -> String {
            "{\"id\": \"\(id)\", \"createdDateTime\": \"2024-05-01T10:00:00.221Z\", \"appDisplayName\": \"\(app)\", \"status\": \(status), \"location\": {\"geoCoordinates\": {\"latitude\": \(latitude), \"longitude\": -0.12}}}"
        }
        let clean = try RepositoryFiles.temporary("big-clean.json", "{\"value\": [\(record("a")), \(record("b"))]}")
        defer { RepositoryFiles.remove(clean) }
        #expect(try StreamedExport.checkGraph(file: clean, strict: false, scratch: NSTemporaryDirectory(), chunkSize: 5) == nil)
        let text = "{\"value\": [\(record("a")),\n\(record("swapped", latitude: "125.16")),\n\(record("nocode", status: "{}")),\n\(record("lone", app: "\\ud800")),\n\(record("text", status: #"{"errorCode": "50126"}"#))]}"
        let mixed = try RepositoryFiles.temporary("big-mixed.json", text)
        defer { RepositoryFiles.remove(mixed) }
        for chunk in [5, 1 << 20] {
            let conversion = try #require(try StreamedExport.checkGraph(file: mixed, strict: false, scratch: NSTemporaryDirectory(), chunkSize: chunk))
            defer { conversion.remove() }
            #expect(conversion.records == 3 && conversion.coordinatesDropped == 1)
            #expect(conversion.skipped == ["\(mixed) item 3 (nocode): skipped, as the agent skips it: 'status.errorCode' is missing or not a whole number",
                                           "\(mixed) item 4 (lone): skipped, as the agent skips it: the event is not valid JSON (line 4, column 88: unpaired surrogate in a \\u escape)"])
            let written = try String(contentsOfFile: conversion.path, encoding: .utf8)
            #expect(written.hasPrefix("[\(record("a")),\n"), "kept as written")
            guard case .array(let kept) = try JSONValue.parse(Data(written.utf8)) else { Issue.record("not an array"); return }
            #expect(kept.map { $0["id"]?.stringValue ?? "" } == ["a", "swapped", "text"])
        }
        let broken = try RepositoryFiles.temporary("big-broken.json", "{\"value\": [\(record("a")),\n{\"id\": \"b\",}]}")
        defer { RepositoryFiles.remove(broken) }
        #expect(throws: ReplayFileError("\(broken): the file is not valid JSON: line 2, column 12: expected a member name in quotes")) {
            _ = try StreamedExport.checkGraph(file: broken, strict: false, scratch: NSTemporaryDirectory(), chunkSize: 5)
        }
    }

    @Test func strictStopsAtTheFirstRecordTheAgentWouldSkip() {
        let file = Self.fixture("log-analytics-signinlogs.json")
        #expect(throws: ReplayFileError("\(file) item 8: 'status.errorCode' is missing or not a whole number")) {
            _ = try ExportConversion.convert(file: file, format: nil, strict: true, scratch: NSTemporaryDirectory())
        }
    }

    @Test func aGraphFileIsLeftToTheFastWaysAndAFileOfNoFormatNamesThoseTried() throws {
        #expect(try ExportConversion.convert(file: RepositoryFiles.root.appendingPathComponent("Tests/Contracts/beta/signin-list-example-1.json").path,
                                             format: nil, strict: false, scratch: NSTemporaryDirectory()) == nil)
        let path = try RepositoryFiles.temporary("not-signins.txt", "hello there\n")
        defer { RepositoryFiles.remove(path) }
        #expect(throws: ReplayFileError("\(path): not a sign-in file this reads; tried \(ExportFormat.described)")) {
            _ = try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory())
        }
    }

    @Test(arguments: [
        ("a,b\n1,2\n", [["1", "2"]]),
        ("a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\r\n", [["x, y", "say \"hi\""]]),
        ("a,b\n\"two\nlines\",3\n4,5", [["two\nlines", "3"], ["4", "5"]]),
        ("a\n\n1\n", [["1"]]),
        ("a\n\"\"", [[""]]),
    ])
    func csvReadsRFC4180(_ text: String, _ rows: [[String]]) throws {
        #expect(try CSVTable(text).rows.map(\.fields) == rows)
    }

    @Test func csvFaultsNameTheirLine() {
        #expect(throws: CSVTable.Failure(line: 3, message: "1 fields where the header names 2")) { try CSVTable("a,b\n1,2\n3\n") }
        #expect(throws: CSVTable.Failure(line: 2, message: "a quoted field is not closed")) { try CSVTable("a\n\"open\n") }
        #expect(throws: CSVTable.Failure(line: 2, message: "a quote inside an unquoted field")) { try CSVTable("a\nx\"y\n") }
    }

    @Test func exportDatesAreRead() {
        #expect(ExportRecord.portalDate("5/1/2024, 3:00:10.123 PM") == "2024-05-01T15:00:10.123Z")
        #expect(ExportRecord.portalDate("12/31/2024, 12:05:00 AM") == "2024-12-31T00:05:00Z")
        #expect(ExportRecord.powerShellDate("/Date(1714532410123)/") == "2024-05-01T03:00:10.123Z")
        #expect(ExportRecord.powerShellDate("/Date(1714532410005)/") == "2024-05-01T03:00:10.005Z")
        #expect(ExportRecord.portalDate("2024-05-01") == nil)
    }

    /// Sentinel rows are told by `Id` beside any of their other names, with or without
    /// `TimeGenerated` (they were taken for Graph's records: "'id' is missing"); Graph's own
    /// records, which say `id`, stay Graph's.
    @Test(arguments: ExportFormat.sentinelNames)
    func sentinelRowsAreToldByIdAndAnotherName(_ name: String) throws {
        let row = #"[{"Id":"s1","\#(name)":"0","createdDateTime":"2024-05-01T10:00:00Z"}]"#
        #expect(ExportFormat.detect(Data(row.utf8)) == .logAnalytics)
        #expect(ExportFormat.detect(Data("\u{FEFF}".utf8) + Data(row.utf8)) == .logAnalytics)
        #expect(ExportFormat.detect(Data(#"[{"id":"s1","appDisplayName":"App","createdDateTime":"2024-05-01T10:00:00Z"}]"#.utf8)) == .graph)
        #expect(ExportFormat.detect(Data(#"[{"Id":"s1","createdDateTime":"2024-05-01T10:00:00Z"}]"#.utf8)) == .graph, "Id alone says nothing")
    }

    /// The head's names are found in its bytes: at either end, after a partial match, and not
    /// across its end; Azure Monitor's `{"records":` with any JSON whitespace, and only first.
    @Test func theHeadIsSearchedAsBytes() {
        func holds(_ needle: String, _ text: String) -> Bool { ExportFormat.holds(Array(needle.utf8), in: Array(text.utf8)) }
        #expect(holds("aab", "aaab") && holds("ab", "ab") && holds("é\"", "xé\"") && holds("\"Id\"", "{\"Id\""))
        #expect(!holds("abc", "ab") && !holds("abc", "abab") && !holds("", "a") && !holds("b", ""))
        for opening in [#"{"records":"#, "  {\n \"records\" \t:", "\r\n{\"records\"\n:[]}"] {
            #expect(ExportFormat.opensWithRecords(Array(opening.utf8)), "\(opening)")
        }
        for opening in [#"[{"records":"#, #"{"recordsX":"#, #"{"records""#, #"{"value":[],"records":"#, "{\u{0B}\"records\":"] {
            #expect(!ExportFormat.opensWithRecords(Array(opening.utf8)), "\(opening)")
        }
        #expect(ExportFormat.detect(Data(" {\n\"records\" : [ ]}".utf8)) == .azureMonitor)
    }

    @Test func sentinelRowsWithoutTimeGeneratedAreRead() throws {
        let path = try RepositoryFiles.temporary("sentinel.json", #"[{"Id":"s1","ResultType":"50126","createdDateTime":"2024-05-01T10:00:00Z"},{"Id":"s2","ResultType":"0","createdDateTime":"2024-05-01T10:01:00Z"}]"#)
        defer { RepositoryFiles.remove(path) }
        let conversion = try #require(try ExportConversion.convert(file: path, format: nil, strict: true, scratch: NSTemporaryDirectory()))
        defer { conversion.remove() }
        #expect(conversion.format == .logAnalytics && conversion.records == 2 && conversion.skipped.isEmpty)
        #expect(try Self.records(conversion).map { $0.value(atPath: "status.errorCode") } == [.int(50126), .int(0)])
    }

    /// One damaged record of an export costs that record, named with its line and column: a
    /// line of JSON lines that does not read (Azure Monitor, Log Analytics), or a row of an
    /// array whose text alone is wrong (a lone surrogate). Before, any of them refused the file.
    @Test(arguments: [
        ("monitor.jsonl", #"{"time":"2024-05-01T10:00:00Z","category":"SignInLogs","properties":{"id":"m1","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0}}}"# + "\n{\"time\": broken\n" + #"{"time":"2024-05-01T10:01:00Z","category":"SignInLogs","properties":{"id":"m3","createdDateTime":"2024-05-01T10:01:00Z","status":{"errorCode":0}}}"# + "\n",
         ExportFormat.azureMonitor, "line 2: skipped, as the agent skips it: the event is not valid JSON (column 10: unexpected character)"),
        ("rows.jsonl", #"{"Id":"r1","TimeGenerated":"2024-05-01T10:00:00Z","ResultType":"0"}"# + "\n{\"Id\":\"r2\",\n" + #"{"Id":"r3","TimeGenerated":"2024-05-01T10:01:00Z","ResultType":"0"}"# + "\n",
         .logAnalytics, "line 2: skipped, as the agent skips it: the event is not valid JSON (column 12: expected a member name in quotes)"),
        ("rows.json", "[" + #"{"Id":"r1","TimeGenerated":"2024-05-01T10:00:00Z","ResultType":"0"}"# + ",\n" + #"{"Id":"r2","TimeGenerated":"2024-05-01T10:00:30Z","ResultType":"0","AppDisplayName":"\ud800"}"# + ",\n" + #"{"Id":"r3","TimeGenerated":"2024-05-01T10:01:00Z","ResultType":"0"}"# + "]",
         .logAnalytics, "item 2: skipped, as the agent skips it: the event is not valid JSON (line 2, column 92: unpaired surrogate in a \\u escape)"),
    ])
    func aDamagedExportRecordCostsThatRecord(_ name: String, _ text: String, _ format: ExportFormat, _ message: String) throws {
        let path = try RepositoryFiles.temporary(name, text)
        defer { RepositoryFiles.remove(path) }
        let conversion = try #require(try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { conversion.remove() }
        #expect(conversion.format == format)
        #expect(conversion.skipped == ["\(path) \(message)"])
        #expect(try Self.records(conversion).map { $0["id"]?.stringValue ?? "" } == [format == .azureMonitor ? "m1" : "r1", format == .azureMonitor ? "m3" : "r3"])
    }

    /// An export array broken in its grammar is not JSON: refused at its line and column.
    @Test func anExportArrayWithATrailingCommaIsRefusedWhereItBreaks() throws {
        let path = try RepositoryFiles.temporary("rows.json", "[\n" + #"  {"Id":"r1","TimeGenerated":"2024-05-01T10:00:00Z","ResultType":"0"},"# + "\n]\n")
        defer { RepositoryFiles.remove(path) }
        #expect(throws: ReplayFileError("\(path): the file is not valid JSON: line 3, column 1: unexpected character")) {
            _ = try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory())
        }
    }

    /// JSON rows are read a record at a time, never whole: records cut apart by the reading
    /// window give the same sign-ins and name the same skipped record, at its place.
    @Test(arguments: [("log-analytics-signinlogs.json", "item 8"), ("graph-powershell.json", "item 8")])
    func jsonRowsAreReadARecordAtATime(_ name: String, _ place: String) throws {
        let file = Self.fixture(name)
        for chunk in [7, 1 << 20] {
            let conversion = try #require(try StreamedExport.convert(file: file, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), chunkSize: chunk))
            defer { conversion.remove() }
            #expect(conversion.records == 7 && conversion.coordinatesDropped == 1)
            #expect(conversion.skipped == ["\(file) \(place) (la000008-0000-4000-8000-000000000000): skipped, as the agent skips it: 'status.errorCode' is missing or not a whole number"])
            #expect(try Self.records(conversion).map { $0["id"]?.stringValue ?? "" } == (1...7).map { String(format: "la%06d-0000-4000-8000-000000000000", $0) })
        }
        // Azure Monitor's wrapper is read a record at a time too.
        let monitor = try #require(try StreamedExport.convert(file: Self.fixture("azure-monitor-records.json"), format: .azureMonitor, strict: false, scratch: NSTemporaryDirectory(), chunkSize: 7))
        defer { monitor.remove() }
        #expect(monitor.records == 1 && monitor.skipped.isEmpty)
    }

    /// CSV is read a row at a time: rows (and quoted JSON fields with doubled quotes) cut
    /// apart by the reading window give the same sign-ins, the same skipped row at its line.
    @Test(arguments: [("log-analytics-signinlogs.csv", ExportFormat.csv, 7, "line 9"), ("InteractiveSignIns_2024-05-01_2024-05-02.csv", .adminCenterCSV, 6, "line 8")])
    func csvIsReadARowAtATime(_ name: String, _ format: ExportFormat, _ count: Int, _ place: String) throws {
        let file = Self.fixture(name)
        var seen: [[JSONValue]] = []
        for chunk in [3, 1 << 20] {
            let conversion = try StreamedExport.convertCSV(file: file, format: format, strict: false, scratch: NSTemporaryDirectory(), chunkSize: chunk)
            defer { conversion.remove() }
            #expect(conversion.records == count)
            #expect(conversion.skipped == ["\(file) \(place) (la000008-0000-4000-8000-000000000000): skipped, as the agent skips it: 'status.errorCode' is missing or not a whole number"])
            seen.append(try Self.records(conversion))
        }
        #expect(seen[0] == seen[1])
    }

    @Test func aCSVRowTheTableWouldRefuseRefusesTheFile() throws {
        let path = try RepositoryFiles.temporary("rows.csv", "Id,TimeGenerated,ResultType\nr1,2024-05-01T10:00:00Z,0\nr2,2024-05-01T10:00:00Z\n")
        defer { RepositoryFiles.remove(path) }
        #expect(throws: ReplayFileError("\(path): not valid CSV: line 3: 2 fields where the header names 3")) {
            _ = try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory())
        }
    }

    /// Fields are trimmed without Foundation when there is nothing to trim, to the same text.
    @Test(arguments: ["50126", " 50126 ", "\t0", "0\t", "\u{A0}1", "1\u{2003}", "", " ", "\n1", "a b"])
    func aFieldIsTrimmedAsFoundationTrimsIt(_ text: String) {
        #expect(ExportRecord.trimmingSpaces(text) == text.trimmingCharacters(in: .whitespaces))
    }

    /// A column named with the portal's ` [UTC]` is read as its plain name; a time without a
    /// slash is no portal date.
    @Test func portalColumnNamesAndDatesAreRead() {
        let record = ExportRecord.fromLogAnalytics(.object(["TimeGenerated [UTC]": .string("5/1/2024, 10:00:00.123 AM"), "Id": .string("r1"), "[odd]": .string("x")]))
        #expect(record["createdDateTime"] == .string("2024-05-01T10:00:00.123Z"))
        #expect(record["[odd]"] == .string("x"))
        #expect(ExportRecord.portalDate("2024-05-01T10:00:00Z") == nil)
    }

    /// Fuzzing found `/Date(-9223372036854775808)/` trapping (arithmetic overflow, signal 4);
    /// a count past the years ISO 8601 text holds is no date.
    @Test func powerShellDatesOutOfRangeAreNoDate() {
        #expect(ExportRecord.powerShellDate("/Date(-9223372036854775808)/") == nil)
        #expect(ExportRecord.powerShellDate("/Date(9223372036854775807)/") == nil)
        #expect(ExportRecord.powerShellDate("/Date(253402300800000)/") == nil)
        #expect(ExportRecord.powerShellDate("/Date(253402300799999)/") == "9999-12-31T23:59:59.999Z")
        #expect(ExportRecord.powerShellDate("/Date(-62135596800000)/") == "0001-01-01T00:00:00.000Z")
        #expect(ExportRecord.powerShellDate("/Date(-62135596800001)/") == nil)
    }

    /// The same date in a PowerShell object and in a CSV cell: that record is skipped and named,
    /// the next one read.
    @Test(arguments: [
        ("ps-overflow.json", #"[{"CreatedDateTime":"/Date(-9223372036854775808)/","Id":"p1","Status":{"ErrorCode":0}},{"CreatedDateTime":"/Date(1714532471123)/","Id":"p2","Status":{"ErrorCode":0}}]"#, "item 1"),
        ("ps-overflow.csv", "Id,CreatedDateTime,ResultType\np1,/Date(-9223372036854775808)/,0\np2,/Date(1714532471123)/,0\n", "line 2"),
    ])
    func aPowerShellDateOutOfRangeSkipsItsRecord(_ name: String, _ text: String, _ place: String) throws {
        let path = try RepositoryFiles.temporary(name, text)
        defer { RepositoryFiles.remove(path) }
        let conversion = try #require(try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { conversion.remove() }
        #expect(conversion.records == 1)
        #expect(conversion.skipped == ["\(path) \(place) (p1): skipped, as the agent skips it: 'createdDateTime' is not an ISO-8601 time"])
        #expect(try Self.records(conversion).map { $0["createdDateTime"] } == [.string("2024-05-01T03:01:11.123Z")])
    }

    /// The check that a record's texts read as the poll's decoder reads them finds a surrogate
    /// escape and bytes that are not UTF-8 wherever they fall against its eight-byte steps, and
    /// passes an escaped backslash before `ud800` and well-formed UTF-8.
    @Test func textsReadFindsSurrogatesAndBadUTF8AtEveryOffset() {
        func reads(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { ExportConversion.textsRead($0) } }
        for pad in 0..<17 {
            let before = Array(#"{"a":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: pad)
            let after = Array(#"x","b":"plain text for a whole word or two"}"#.utf8)
            #expect(!reads(before + Array(#"\ud800"#.utf8) + after), "lone surrogate after \(pad)")
            #expect(!reads(before + Array(#"\uD83D\uDE00"#.utf8) + after), "surrogate pair after \(pad), read whole")
            #expect(reads(before + Array(#"\\ud800"#.utf8) + after), "escaped backslash after \(pad)")
            // Backslashes escaping each other, in runs across a word's end, and escaped quotes.
            #expect(!reads(before + Array(#"\\\\\ud800"#.utf8) + after), "a surrogate after two escaped backslashes after \(pad)")
            #expect(reads(before + Array(#"\\\\\\ud800"#.utf8) + after), "three escaped backslashes after \(pad)")
            #expect(!reads(before + Array(#"\"{\"a\":\"\"}\"\ud800"#.utf8) + after), "a surrogate after escaped quotes after \(pad)")
            #expect(reads(before + Array("Zürich".utf8) + after), "UTF-8 after \(pad)")
            #expect(!reads(before + [0xC3] + after), "a cut UTF-8 sequence after \(pad)")
            #expect(reads(before + after))
        }
    }
}
