import Foundation
@_exported import TophhieTestSupport
import Testing
import TophhieRules
import TophhieAgent
@testable import TophhieCLI

/// The repository's folders and temporary rule files (`RepositoryFiles`), by the name these tests know them.
typealias RulesTestPaths = RepositoryFiles

@Suite(.timeLimit(.minutes(20))) struct RulesCommandTests {
    func run(_ arguments: [String]) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io)
        return (code, recorder)
    }

    /// `rules export` writes the built-in pack out; the copy checks and tests as the pack does,
    /// and a second export overwrites nothing without --force.
    @Test func rulesExportWritesTheBuiltInPack() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tw-export-\(UUID().uuidString)/rules").path
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let (code, output) = await run(["rules", "export", folder])
        #expect(code == .ok, "\(output.err)")
        #expect(output.out == "wrote \(BuiltInRulePack.files.count) files (\(BuiltInRulePack.ruleFileCount) rule files, their tests and README.md) to \(folder); point 'rules:' in the config at it\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == BuiltInRulePack.files.map(\.name))
        let (testCode, tested) = await run(["rules", "test", folder])
        #expect(testCode == .ok, "\(tested.out)")
        let (again, refused) = await run(["rules", "export", folder])
        #expect(again == .usage)
        #expect(refused.err.hasPrefix("tophhie-watch rules export: \(folder)/README.md exists; nothing was written (pass --force to overwrite)"), "\(refused.err)")
        let (forced, _) = await run(["rules", "export", "--force", folder])
        #expect(forced == .ok)
    }

    /// With no rules configured, in ./rules or installed, the built-in pack is used: `rules test`
    /// from a folder with nothing in it runs the pack's own cases.
    @Test func theBuiltInPackIsTheLastFallback() async throws {
        let empty = URL(fileURLWithPath: "/nonexistent/tophhie-work")
        let paths = AgentSetup.rulePaths(AgentConfiguration(stateDirectory: empty), environment: .init(variables: [:], workingDirectory: empty, executable: nil))
        #expect(paths == [BuiltInRulePack.path] || paths == ["/usr/local/share/tophhie-watch/rules"] || paths == ["/usr/share/tophhie-watch/rules"])
        let (code, output) = await run(["rules", "test", BuiltInRulePack.path])
        #expect(code == .ok, "\(output.out)\(output.err)")
        #expect(output.out.contains("passed"), "\(output.out)")
    }

    /// `rules check --strict` fails on a warning (exit 1), and a misspelt field is an error.
    @Test func rulesCheckStrictFailsOnWarnings() async throws {
        let warned = try RulesTestPaths.temporary("warned.yml", "title: K\nid: k\nlogsource: {product: azure, service: signinlogs}\ndetection: {keywords: [evil], condition: keywords}\n")
        let misspelt = try RulesTestPaths.temporary("misspelt.yml", "title: M\nid: m\nlogsource: {product: azure, service: signinlogs}\ndetection: {selection: {deviceDetail.operatingSystm: Linux}, condition: selection}\n")
        defer { RulesTestPaths.remove(warned); RulesTestPaths.remove(misspelt) }
        let (lenient, _) = await run(["rules", "check", warned])
        #expect(lenient == .ok)
        let (strict, output) = await run(["rules", "check", "--strict", warned])
        #expect(strict == .failure, "\(output.out)")
        let (error, errorOutput) = await run(["rules", "check", misspelt])
        #expect(error == .usage)
        #expect(errorOutput.out.contains("did you mean 'deviceDetail.operatingSystem'?"), "\(errorOutput.out)")
    }

    /// `replay` and `rules match` tell a rule that could never fire as `rules check` does: a
    /// warning on standard error, and with `--strict` an error (exit 2) before any file is read.
    @Test func replayAndMatchTellRulesThatCouldNeverFire() async throws {
        let dead = try RulesTestPaths.temporary("dead.yml", "title: D\nid: d\nlogsource: {product: azure, service: signinlogs}\ndetection: {selection: {NoSuchField: x}, condition: selection}\n")
        let page = try RulesTestPaths.temporary("page.json", #"{"value":["# + good + "]}")
        defer { RulesTestPaths.remove(dead); RulesTestPaths.remove(page) }
        let warning = "dead.yml:4:25: warning: field 'NoSuchField' does not exist in the Graph signIn resource (beta or v1.0); a value test on it never matches Graph sign-ins"
        // `rules check` holds such a rule an error (the agent would load it); over a file, rules
        // from other sources are told, not refused.
        let (_, checked) = await run(["rules", "check", dead])
        #expect(checked.out.contains("dead.yml:4:25: error: field 'NoSuchField' does not exist in the Graph signIn resource (beta or v1.0), so this rule could never fire"), "\(checked.out)")
        for command in [["replay"], ["rules", "match"]] {
            let (code, output) = await run(command + [page, "--rules", dead])
            #expect(code == .ok, "\(command): \(output.err)")
            #expect(output.err.contains(warning), "\(output.err)")
            let (strict, strictOutput) = await run(command + ["--strict", page, "--rules", dead])
            #expect(strict == .usage, "\(command): \(strictOutput.err)")
            #expect(strictOutput.err.contains(warning) && strictOutput.err.contains("the rules have 1 warning(s), and --strict makes them errors"), "\(strictOutput.err)")
            #expect(strictOutput.out.isEmpty)
        }
    }

    @Test func checkOnABrokenFilePrintsTheExactLocation() async throws {
        let path = try RulesTestPaths.temporary("broken.yml", """
        title: Broken
        id: broken
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                ResultType: 50126
            condition: selection and not
        """)
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["rules", "check", path])
        #expect(code == .usage)
        #expect(output.out.contains("\(path):7:33: error: condition: the condition ends where an identifier or '(' was expected\n"), "\(output.out)")
        #expect(output.out.contains("0 rule(s) loaded"))
    }

    @Test func checkOnAYAMLErrorPointsAtIt() async throws {
        let path = try RulesTestPaths.temporary("tabs.yml", "title: x\ndetection:\n  a: [1, 2\n")
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["rules", "check", path])
        #expect(code == .usage)
        #expect(output.out.contains("\(path):"), "\(output.out)")
        #expect(output.out.contains(": error: "))
    }

    @Test func checkPassesOnThePackAndCountsRules() async {
        let (code, output) = await run(["rules", "check", RulesTestPaths.rules])
        #expect(code == .ok)
        #expect(output.out.contains("42 rule(s) loaded (28 detection, 14 correlation) from 19 file(s); 0 skipped; 0 error(s), 0 warning(s)"), "\(output.out)")
    }

    /// The pack reads beta's fields: against v1.0 each such field is a warning, against beta none.
    /// (Ten of the sixteen are `authenticationRequirement`, the place rules' MFA evidence: under
    /// v1.0 it is absent, and every interactive success counts as the person's; one is the
    /// agent token's network.)
    @Test func checkWarnsOfBetaFieldsOnlyAgainstVersionOne() async {
        let (code, output) = await run(["rules", "check", "--api", "v1.0", RulesTestPaths.rules])
        #expect(code == .ok)
        #expect(output.out.contains("0 error(s), 16 warning(s)"), "\(output.out)")
        #expect(output.out.contains("device-code-sign-in.yml:27:9: warning: field 'originalTransferMethod' (Graph 'originalTransferMethod') exists only in the Graph beta signIn, and graph.api is v1.0"), "\(output.out)")
        let (bad, badOutput) = await run(["rules", "check", "--api", "v2", RulesTestPaths.rules])
        #expect(bad == .usage)
        // Refused by the parser, as every option's wrong value is: its name and what it takes.
        #expect(badOutput.err.contains("option '--api' takes beta or v1.0, not 'v2'"), "\(badOutput.err)")
    }

    @Test func checkOnAMissingPathIsAUsageError() async {
        let (code, output) = await run(["rules", "check", "/nonexistent/rules"])
        #expect(code == .usage)
        #expect(output.err.contains("/nonexistent/rules: no such file or folder"))
    }

    @Test func testPassesOnThePack() async {
        let (code, output) = await run(["rules", "test", RulesTestPaths.rules])
        #expect(code == .ok, "\(output.out)\(output.err)")
        #expect(output.out.contains("passed, 0 failed"))
    }

    @Test func testShowsExpectedAndFiredOnAMismatch() async throws {
        let tests = try RulesTestPaths.temporary("lockout.tests.yml", """
        rule: account-lockout
        cases:
            - name: expects the wrong events
              events:
                  - {id: l1, createdDateTime: "2024-05-01T10:00:00Z", status: {errorCode: 50053}}
                  - {id: l2, createdDateTime: "2024-05-01T12:00:00Z", status: {errorCode: 50053}}
              expect:
                  - [l1]
        """)
        defer { RulesTestPaths.remove(tests) }
        let (code, output) = await run(["rules", "test", RulesTestPaths.rules + "/account-lockout.yml", tests])
        #expect(code == .failure)
        #expect(output.out.contains("FAIL \(tests):3: account-lockout: expects the wrong events"), "\(output.out)")
        #expect(output.out.contains("  expected: [l1]\n  fired:    [l1] [l2]\n"), "\(output.out)")
    }

    static func failure(_ id: String, _ minute: Int, code: Int = 50126) -> String {
        #"{"id":"\#(id)","createdDateTime":"2024-05-01T10:0\#(minute):00.1234567Z","userId":"u1","ipAddress":"203.0.113.9","status":{"errorCode":\#(code)}}"#
    }

    @Test func replayReadsAGraphPageAndPrintsJSONAlerts() async throws {
        let events = (0..<5).map { RulesCommandTests.failure("f\($0)", $0) }.joined(separator: ",")
        let path = try RulesTestPaths.temporary("page.json", #"{"@odata.context":"x","value":[\#(events)]}"#)
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["replay", path, "--rules", RulesTestPaths.rules, "--format", "json"])
        #expect(code == .ok, "\(output.err)")
        let lines = output.out.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect((object["rule"] as? [String: Any])?["id"] as? String == "failure-burst")
        #expect((object["rule"] as? [String: Any])?["title"] as? String == "Burst of failed sign-ins")
        #expect(object["level"] as? String == "medium")
        #expect(object["group"] as? [String: String] == ["userId": "u1"])
        #expect(object["events"] as? [String] == ["f0", "f1", "f2", "f3", "f4"])
        #expect(object["firstEventTime"] as? String == "2024-05-01T10:00:00.123Z")
        #expect(object["lastEventTime"] as? String == "2024-05-01T10:04:00.123Z")
        #expect(object["detectedAt"] as? String == "2024-05-01T10:04:00.123Z")
        #expect(object["late"] as? Bool == false)
        #expect((object["id"] as? String)?.count == 32)
        #expect(output.err.contains("replay: 5 event(s) in 1 poll(s)"))
    }

    /// Entra's unknown location is counted in replay's summary, as the poll line counts it: the
    /// (0, 0) record with no country and the country without coordinates, not London. Both
    /// evaluators count the same, whatever the rules read (an alert's sign-ins carry their place).
    @Test(arguments: ["fast", "plain"])
    func replaySaysHowManySignInsHadAnUnknownLocation(engine: String) async throws {
        func signIn(_ id: String, _ minute: Int, _ location: String) -> String {
            #"{"id":"\#(id)","createdDateTime":"2024-05-01T10:0\#(minute):00Z","userId":"u1","ipAddress":"81.2.69.10","status":{"errorCode":0},"location":\#(location)}"#
        }
        let events = [
            signIn("london", 0, #"{"city":"London","countryOrRegion":"GB","geoCoordinates":{"latitude":51.5,"longitude":-0.12}}"#),
            signIn("nowhere", 1, #"{"city":"","countryOrRegion":"","geoCoordinates":{"latitude":0,"longitude":0}}"#),
            signIn("country-only", 2, #"{"countryOrRegion":"FR"}"#),
        ]
        let path = try RulesTestPaths.temporary("unknown-places.json", #"{"value":[\#(events.joined(separator: ","))]}"#)
        defer { RulesTestPaths.remove(path) }
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(["replay", path, "--rules", RulesTestPaths.rules], io: recorder.io(environment: ["TOPHHIE_ENGINE": engine]))
        #expect(code == .ok, "\(recorder.err)")
        #expect(recorder.err.contains("replay: 3 event(s) in 1 poll(s), "), "\(recorder.err)")
        #expect(recorder.err.contains("; 2 with an unknown location (no place to the rules)\n"), "\(recorder.err)")

        let placeless = try RulesTestPaths.temporary("placeless.yml", """
            title: Failures
            id: failures-only
            logsource: {product: azure, service: signinlogs}
            detection:
              selection: {status.errorCode: 50126}
              condition: selection
            level: low
            """)
        defer { RulesTestPaths.remove(placeless) }
        let other = CommandOutputRecorder()
        _ = await TophhieCommandLine.run(["replay", path, "--rules", placeless], io: other.io(environment: ["TOPHHIE_ENGINE": engine]))
        #expect(other.err.contains("replay: 3 event(s) in 1 poll(s), 1 rule(s): 0 alert(s); 2 with an unknown location (no place to the rules)\n"), "\(other.err)")
    }

    @Test func replayOfAScenarioWithLateEventsFiresOnceAndSaysLate() async throws {
        let first = (0..<3).map { RulesCommandTests.failure("f\($0)", $0) }
        let all = (0..<5).map { RulesCommandTests.failure("f\($0)", $0) }
        let scenario = """
        {"polls":[
          {"at":"2024-05-01T10:10:00Z","events":[\(first.joined(separator: ","))]},
          {"at":"2024-05-01T13:10:00Z","events":[\(all.joined(separator: ","))]},
          {"at":"2024-05-01T13:15:00Z","events":[\(all.joined(separator: ","))]}
        ]}
        """
        let path = try RulesTestPaths.temporary("scenario.json", scenario)
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["replay", path, "--rules", RulesTestPaths.rules])
        #expect(code == .ok, "\(output.err)")
        let lines = output.out.split(separator: "\n")
        #expect(lines.count == 1, "\(output.out)")
        #expect(lines.first?.hasPrefix("2024-05-01T13:10:00.000Z MEDIUM [failure-burst] 5 failed sign-ins to your account in 4 minutes, the last from an unknown place (203.0.113.9) (userId=u1) events=5") == true, "\(output.out)")
        #expect(lines.first?.contains("late-by=3h6m") == true, "\(output.out)")
    }

    @Test func replayOfEventsPublishedAfterTheHorizonSaysSoInsteadOfDroppingThem() async throws {
        let late = (0..<5).map { RulesCommandTests.failure("f\($0)", $0) }
        let scenario = """
        {"polls":[
          {"at":"2024-05-01T09:00:00Z","events":[]},
          {"at":"2024-05-03T12:00:00Z","events":[]},
          {"at":"2024-05-03T13:00:00Z","events":[\(late.joined(separator: ","))]}
        ]}
        """
        let path = try RulesTestPaths.temporary("late-scenario.json", scenario)
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["replay", path, "--rules", RulesTestPaths.rules])
        #expect(code == .ok, "\(output.err)")
        #expect(output.out.isEmpty, "a burst whose windows closed cannot be counted")
        #expect(output.err.contains("replay: 5 sign-ins from 2024-05-01T10:00:00.123Z to 2024-05-01T10:04:00.123Z were published after the 24 h lookback had passed them; 5 were evaluated late"), "\(output.err)")
    }

    @Test func rulesMatchListsEachDetectionsSignInsOnceWithoutWindows() async throws {
        // Two lockouts (one repeated) and a failure: account-lockout selects the lockouts alone,
        // and the failure-burst correlation's threshold plays no part.
        let events = [RulesCommandTests.failure("l1", 0, code: 50053), RulesCommandTests.failure("l1", 0, code: 50053),
                      RulesCommandTests.failure("l2", 1, code: 50053), RulesCommandTests.failure("f1", 2)]
        let path = try RulesTestPaths.temporary("match.json", "[" + events.joined(separator: ",") + "]")
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["rules", "match", path, "--rules", RulesTestPaths.rules + "/account-lockout.yml", "--format", "json"])
        #expect(code == .ok, "\(output.err)")
        #expect(output.out == """
        {"event":"l1","rule":"account-lockout","time":"2024-05-01T10:00:00.123Z","title":"Account locked out"}
        {"event":"l2","rule":"account-lockout","time":"2024-05-01T10:01:00.123Z","title":"Account locked out"}

        """, "\(output.out)")
        #expect(output.err == "rules match: 4 event(s), 1 detection rule(s): 2 match(es) by 1 rule(s)\n")
        let (text, textOutput) = await run(["rules", "match", path, "--rules", RulesTestPaths.rules + "/account-lockout.yml"])
        #expect(text == .ok && textOutput.out.hasPrefix("account-lockout l1 2024-05-01T10:00:00.123Z\n"), "\(textOutput.out)")
    }

    @Test func replayReadsJSONLinesAndArraysAlike() async throws {
        let events = (0..<5).map { RulesCommandTests.failure("f\($0)", $0) }
        let lines = try RulesTestPaths.temporary("lines.jsonl", events.joined(separator: "\n") + "\n")
        defer { RulesTestPaths.remove(lines) }
        let array = try RulesTestPaths.temporary("array.json", "[" + events.joined(separator: ",\n") + "]")
        defer { RulesTestPaths.remove(array) }
        let (a, outA) = await run(["replay", lines, "--rules", RulesTestPaths.rules, "--format", "json"])
        let (b, outB) = await run(["replay", array, "--rules", RulesTestPaths.rules, "--format", "json"])
        #expect(a == .ok && b == .ok)
        #expect(outA.out == outB.out && !outA.out.isEmpty)
    }

    @Test(arguments: [
        (#"{"polls":[{"events":[]}]}"#, "poll 1 needs 'at'"),
        ("hello", "not a sign-in file this reads; tried Graph JSON (a page, an array, JSON lines, a poll timeline), Azure Monitor diagnostic records"),
        // A Graph page across lines with a trailing comma (as Microsoft's own List signIns example
        // has): reported where it is, not as JSON lines.
        ("{\n  \"value\": [\n    {\"id\": \"x\", \"createdDateTime\": \"2024-05-01T10:00:00Z\"},\n  ]\n}\n", "the file is not valid JSON: line 4, column 3: "),
        // The same comma inside a record (Microsoft's v1.0 example): the page is not JSON, so the
        // file is refused where it breaks, not read as a page of one damaged record.
        ("{\n  \"value\": [\n    {\"id\": \"x\", \"createdDateTime\": \"2024-05-01T10:00:00Z\", \"status\": {\"errorCode\": 0}},\n    {\"id\": \"y\",\n     \"createdDateTime\": \"2024-05-01T10:00:00Z\",\n    }\n  ]\n}\n", "bad.json: the file is not valid JSON: line 6, column 5: expected a member name in quotes"),
        (#"{"value":[{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":}}]}"#, "bad.json: the file is not valid JSON: line 1, column 84: unexpected character"),
        // After a byte-order mark, positions are counted from the JSON itself.
        ("\u{FEFF}{\"value\": [{\"id\": \"x\",}]}", "bad.json: the file is not valid JSON: line 1, column 23: expected a member name in quotes"),
    ])
    func replayRejectsBadInputWithAClearMessage(_ text: String, _ message: String) async throws {
        let path = try RulesTestPaths.temporary("bad.json", text)
        defer { RulesTestPaths.remove(path) }
        for command in [["replay"], ["rules", "match"]] {
            let (code, output) = await run(command + [path, "--rules", RulesTestPaths.rules])
            #expect(code == .usage, "\(command)")
            #expect(output.err.contains(message), "\(output.err)")
        }
    }

    /// A file with records, none a sign-in, is refused (exit 2) with what it holds instead.
    @Test(arguments: [
        ("audit.json", "{\"value\":[" + (1...123).map { #"{"id":"a\#($0)","activityDisplayName":"Update user","activityDateTime":"2024-05-01T10:00:00Z","category":"UserManagement"}"# }.joined(separator: ",") + "]}",
         "audit.json: an audit log: 123 records with activityDisplayName, none a sign-in"),
        ("audit-rows.json", "[" + (1...5).map { #"{"TimeGenerated":"2024-05-01T10:00:00Z","Id":"Directory_\#($0)","OperationName":"Update user","Type":"AuditLogs","ActivityDisplayName":"Update user"}"# }.joined(separator: ",") + "]",
         "audit-rows.json: an audit log (AuditLogs): 5 records with ActivityDisplayName, none a sign-in"),
        ("heartbeat.json", #"[{"TimeGenerated":"2024-05-01T10:00:00Z","Computer":"web1","Type":"Heartbeat"},{"TimeGenerated":"2024-05-01T10:05:00Z","Computer":"web1","Type":"Heartbeat"}]"#,
         "heartbeat.json: a Heartbeat table: 2 records, none a sign-in"),
        ("one.json", #"{"value":[{"id":"x"}]}"#, "one.json: 1 record, none a sign-in; the first, item 1: 'createdDateTime' is missing"),
    ])
    func aFileWithNoSignInIsRefusedNamingWhatItHolds(_ name: String, _ text: String, _ message: String) async throws {
        let path = try RulesTestPaths.temporary(name, text)
        defer { RulesTestPaths.remove(path) }
        for command in [["replay"], ["rules", "match"]] {
            let (code, output) = await run(command + [path, "--rules", RulesTestPaths.rules])
            #expect(code == .usage, "\(command): \(output.err)")
            #expect(output.err.contains(message), "\(output.err)")
            #expect(!output.err.contains("skipped, as the agent skips it"), "the refusal says it once: \(output.err)")
        }
    }

    /// A record the agent would skip is skipped and named, where it is in the file; `--strict`
    /// stops at it instead (exit 2).
    @Test(arguments: [
        (#"{"value":[{"id":"x"},"# + good + "]}", "item 1 (x): skipped, as the agent skips it: 'createdDateTime' is missing"),
        (#"{"value":[{"id":"x","createdDateTime":"yesterday"},"# + good + "]}", "item 1 (x): skipped, as the agent skips it: 'createdDateTime' is not an ISO-8601 time"),
        ("{\"id\":\"a\",\"createdDateTime\":\"2024-05-01T10:00:00Z\",\"status\":{\"errorCode\":0}}\n{broken\n", "line 2: skipped, as the agent skips it: the event is not valid JSON (column 2: "),
        // A lone surrogate in a field the quick check does not read: that record alone.
        (#"{"value":[{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0},"appDisplayName":"\ud800"},"# + good + "]}", "item 1 (x): skipped, as the agent skips it: the event is not valid JSON (line 1, column 111: unpaired surrogate in a \\u escape)"),
        (#"[{"id":"x","createdDateTime":"2024-05-01T10:00:00Z"},"# + good + "]", "item 1 (x): skipped, as the agent skips it: 'status' is missing or not an object"),
    ])
    func aRecordTheAgentWouldSkipIsSkippedAndNamed(_ text: String, _ message: String) async throws {
        let path = try RulesTestPaths.temporary("bad.json", text)
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["replay", path, "--rules", RulesTestPaths.rules])
        #expect(code == .ok, "\(output.err)")
        #expect(output.err.contains("replay: \(path) \(message)"), "\(output.err)")
        let (strict, strictOutput) = await run(["replay", "--strict", path, "--rules", RulesTestPaths.rules])
        #expect(strict == .usage)
        let stopped = message.replacingOccurrences(of: "skipped, as the agent skips it: ", with: "").replacingOccurrences(of: #" \([^)]*\):"#, with: ":", options: .regularExpression, range: message.range(of: #"^[a-z]+ \d+ \([^)]*\):"#, options: .regularExpression))
        #expect(strictOutput.err.contains("\(path) \(stopped)"), "\(strictOutput.err) / \(stopped)")
    }

    /// Good records and bad ones in one file: the good ones' alerts, and one line per bad one.
    @Test func aMixedFileGivesTheGoodRecordsAlertsAndOneLinePerBadRecord() async throws {
        var lines = (0..<5).map { #"{"id":"f\#($0)","createdDateTime":"2024-05-01T10:0\#($0):00Z","userId":"u1","status":{"errorCode":50053}}"# }
        lines.insert(#"{"id":"bad1","createdDateTime":"2024-05-01T10:02:30Z"}"#, at: 2)
        lines.insert("{not json", at: 4)
        let path = try RulesTestPaths.temporary("mixed.jsonl", lines.joined(separator: "\n") + "\n")
        defer { RulesTestPaths.remove(path) }
        let (code, output) = await run(["replay", path, "--rules", RulesTestPaths.rules])
        #expect(code == .ok, "\(output.err)")
        #expect(output.out.contains("[account-lockout]"), "\(output.out)")
        #expect(output.err.contains("read \(path) as graph: 5 sign-in(s), 2 skipped"), "\(output.err)")
        #expect(output.err.components(separatedBy: "skipped, as the agent skips it").count == 3)
        #expect(output.err.contains("line 3 (bad1): skipped, as the agent skips it: 'status' is missing or not an object"))
        #expect(output.err.contains("line 5: skipped, as the agent skips it: the event is not valid JSON (column 2: "))
    }

    /// JSON lines with a byte-order mark (a forensic collector's export) read as without one.
    @Test func jsonLinesAfterAByteOrderMarkAreRead() async throws {
        let plain = "{\"id\":\"a\",\"createdDateTime\":\"2024-05-01T10:00:00Z\",\"status\":{\"errorCode\":50053}}\n{\"id\":\"b\",\"createdDateTime\":\"2024-05-01T10:01:00Z\",\"status\":{\"errorCode\":50053}}\n"
        let withMark = try RulesTestPaths.temporary("bom.jsonl", "\u{FEFF}" + plain)
        let without = try RulesTestPaths.temporary("plain.jsonl", plain)
        defer { RulesTestPaths.remove(withMark); RulesTestPaths.remove(without) }
        let (a, outA) = await run(["replay", withMark, "--rules", RulesTestPaths.rules, "--format", "json"])
        let (b, outB) = await run(["replay", without, "--rules", RulesTestPaths.rules, "--format", "json"])
        #expect(a == .ok && b == .ok, "\(outA.err)")
        #expect(outA.out == outB.out && !outA.out.isEmpty)
        #expect(outA.err.contains("replay: 2 event(s)"), "\(outA.err)")
    }

    /// `replay` and `rules match` read an export from itself with the engine they run by
    /// default; with the plain evaluator `replay` reads Graph records written from it. Both
    /// give the same alerts, and the export's skipped record is named the same way.
    @Test func anExportIsReadFromItselfByTheFastEngine() async throws {
        let export = RepositoryFiles.root.appendingPathComponent("Tests/Contracts/exports/log-analytics-signinlogs.json").path
        let fast = CommandOutputRecorder()
        _ = await TophhieCommandLine.run(["replay", export, "--rules", RulesTestPaths.rules, "--verbose"], io: fast.io)
        let plain = CommandOutputRecorder()
        _ = await TophhieCommandLine.run(["replay", export, "--rules", RulesTestPaths.rules, "--verbose"], io: plain.io(environment: ["TOPHHIE_ENGINE": "plain"]))
        #expect(fast.err.contains("replay: read from the export itself in two passes"), "\(fast.err)")
        #expect(!plain.err.contains("from the export itself"), "\(plain.err)")
        #expect(fast.out == plain.out && !fast.out.isEmpty)
        let skipped = "\(export) item 8 (la000008-0000-4000-8000-000000000000): skipped, as the agent skips it: 'status.errorCode' is missing or not a whole number"
        #expect(fast.err.contains(skipped) && plain.err.contains(skipped))
        let (code, matched) = await run(["rules", "match", export, "--rules", RulesTestPaths.rules])
        #expect(code == .ok && matched.err.contains("rules match: 7 event(s)"), "\(matched.err)")
    }

    /// A string with bytes that are not UTF-8: the record is skipped, as the poll skips it,
    /// named where it breaks; with --strict, the replay stops there.
    @Test func replayNamesInvalidUTF8InAFieldTheRulesRead() async throws {
        let path = try RulesTestPaths.temporary("utf8.json", "[]")
        defer { RulesTestPaths.remove(path) }
        var bytes = Array(#"[{"id":"a","createdDateTime":"2024-05-01T10:00:00Z","appDisplayName":""#.utf8)
        bytes += [0xFF] + Array(#""},"#.utf8) + Array(good.utf8) + Array("]".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (code, output) = await run(["replay", path, "--rules", RulesTestPaths.rules])
        #expect(code == .ok)
        #expect(output.err.contains("item 1 (a): skipped, as the agent skips it: the event is not valid JSON (line 1, column 71: invalid UTF-8 in a string)"), "\(output.err)")
        let (strict, strictOutput) = await run(["replay", "--strict", path, "--rules", RulesTestPaths.rules])
        #expect(strict == .usage)
        #expect(strictOutput.err.contains("item 1: the event is not valid JSON (line 1, column 71: invalid UTF-8 in a string)"), "\(strictOutput.err)")
    }

    @Test func replayRejectsAnUnknownFormat() async throws {
        let (code, output) = await run(["replay", "x.json", "--format", "xml"])
        #expect(code == .usage)
        #expect(output.err.contains("'--format' takes 'text' or 'json', not 'xml'"))
    }
}

/// A sign-in every decoder reads, beside a bad record, so the file still yields one.
private let good = #"{"id":"good","createdDateTime":"2024-05-01T11:00:00Z","status":{"errorCode":0}}"#
