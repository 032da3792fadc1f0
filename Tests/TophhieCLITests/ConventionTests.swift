import Foundation
import TophhieAuth
import TophhieSystem
import Testing
import TophhieAgent
import TophhieJSON
import TophhieRules
import TophhieSimulator
@testable import TophhieCLI

/// The command-line conventions a user expects: --version, help CMD, NO_COLOR, --quiet, --rules,
/// --json, completion and the manual page, and the same exit code for the same kind of trouble.
@Suite(.timeLimit(.minutes(20))) struct ConventionTests {
    func run(_ arguments: [String], _ environment: [String: String] = [:]) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: environment, transport: AccountCommandTests.noNetwork))
        return (code, recorder)
    }

    func run(_ arguments: [String], _ context: AccountCommandTests.Tenant) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: context.environment, transport: context.transport, clock: context.clock))
        return (code, recorder)
    }

    /// The checkout's default rules.
    static let repoRules: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.appendingPathComponent("rules").path
    }()

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-conv-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(arguments: [["--version"], ["-V"], ["version"]])
    func versionPrintsTheProductVersion(_ arguments: [String]) async {
        let (code, output) = await run(arguments)
        #expect(code == .ok)
        #expect(output.out == "tophhie-watch \(ProductVersion.number)\n")
        #expect(output.err.isEmpty)
    }

    /// One version string: what `version` prints is what Graph calls and webhooks name in their
    /// User-Agent, and `version` has help like every command.
    @Test func oneVersionStringEverywhere() async {
        #expect(TophhieConfiguration.version == ProductVersion.number)
        #expect(WebhookNotifier.version == ProductVersion.number)
        let (code, output) = await run(["version", "--help"])
        #expect(code == .ok)
        #expect(output.out.contains("usage: tophhie-watch version"), "\(output.out)")
    }

    @Test func helpNamesACommandsOwnHelp() async {
        let (code, help) = await run(["help", "poll"])
        let (_, flag) = await run(["poll", "--help"])
        #expect(code == .ok)
        #expect(help.out == flag.out)
        #expect(help.out.contains("--quiet"))
        let (groupCode, group) = await run(["help", "outbox"])
        #expect(groupCode == .ok)
        #expect(group.out.contains("outbox list") && group.out.contains("outbox retry") && !group.out.contains("  poll "))
        let (badCode, bad) = await run(["help", "pol"])
        #expect(badCode == .usage)
        #expect(bad.err == "tophhie-watch: no help for 'pol': no such command; see 'tophhie-watch --help'\n")
    }

    @Test func noColorTurnsTheStdoutNotifiersColourOffOnATerminal() async throws {
        let alert = NotifierTestAlertsForCLI.alert()
        for (environment, coloured) in [([String: String](), true), (["NO_COLOR": "1"], false), (["NO_COLOR": ""], true)] {
            let lines = LinesSeen()
            let factory = NotifierFactory(environment: environment, outputIsTerminal: true, write: { lines.add($0) })
            let (notifier, _) = try factory.make(NotifierConfiguration(name: "console", type: "stdout"))
            try await notifier.deliver(alert)
            #expect(lines.all.joined().contains("\u{1b}[") == coloured, "\(environment)")
        }
    }

    @Test func completionScriptsNameEveryCommandAndOption() async throws {
        for shell in ShellCompletion.shells {
            let (code, script) = await run(["completion", shell])
            #expect(code == .ok)
            for command in TophhieCommandLine.commands {
                #expect(script.out.contains(command.spec.path.last!), "\(shell): \(command.spec.path)")
            }
            #expect(script.out.contains("--quiet") || shell == "fish" && script.out.contains("-l quiet"), "\(shell)")
        }
        let (code, bad) = await run(["completion", "tcsh"])
        #expect(code == .usage)
        #expect(bad.err.contains("name one shell: bash, zsh, fish"))
    }

    @Test func theManualPageCarriesEveryCommandsHelpText() async {
        let (code, page) = await run(["manpage"])
        #expect(code == .ok)
        #expect(page.out.hasPrefix(".TH TOPHHIE-WATCH 1 "))
        for command in TophhieCommandLine.commands {
            #expect(page.out.contains(".SS \"\(command.spec.displayName)\""))
            let firstOption = HelpText.render(command.spec).split(separator: "\n").first { $0.hasPrefix("  --") }
            if let firstOption { #expect(page.out.contains(ManualPage.escape(String(firstOption))), "\(command.spec.path)") }
        }
        #expect(ManualPage.escape(".hidden \\n") == "\\&.hidden \\en")
        #expect(ManualPage.escape("a — b…") == "a \\[u2014] b\\[u2026]")
    }

    /// One command line per kind of trouble, and the code each must give.
    static let exitCodeTable: [([String], [String: String], ExitCode)] = [
        (["poll", "--bogus"], [:], .usage),
        (["notify", "test", "--bogus"], [:], .usage),
        (["doctor", "--bogus"], [:], .usage),
        (["status", "--bogus"], [:], .usage),
        (["frobnicate"], [:], .usage),
    ]

    /// Over every command: an unknown option is a usage error (2), and so is a tenant that is
    /// not one, wherever a tenant is taken; and the README's exit-code table names each code the
    /// program has, and no other.
    @Test func everyCommandGivesTwoForUsageAndConfigurationTrouble() async throws {
        for command in TophhieCommandLine.commands {
            let (code, output) = await run(command.spec.path + ["--no-such-option"])
            #expect(code == .usage, "\(command.spec.displayName): \(output.err)")
            guard command.spec.options.contains(where: { $0.name == "tenant" }) else { continue }
            let (configCode, configOutput) = await run(command.spec.path + ["--tenant", "../../evil"], ["TOPHHIE_STATE_DIR": "/nonexistent/tophhie"])
            #expect(configCode == .usage, "\(command.spec.displayName): \(configOutput.err)\(configOutput.out)")
        }
        let readme = try String(contentsOf: RepositoryFiles.root.appendingPathComponent("README.md"), encoding: .utf8)
        let codes = readme.split(separator: "\n").compactMap { line -> Int32? in
            guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return Int32(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        #expect(codes == [0, 1, 2, 3, 4])
        #expect(codes.compactMap(ExitCode.init(rawValue:)).count == codes.count)
    }

    @Test func theSameTroubleGivesTheSameExitCodeInEveryCommand() async throws {
        for (arguments, environment, expected) in Self.exitCodeTable {
            #expect(await run(arguments, environment).0 == expected, "\(arguments)")
        }
        // A notifier whose secret file is missing is a configuration error for every command
        // that builds notifiers: poll, doctor and notify test all exit 2.
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "title: T\nid: t\nlogsource: {product: azure, service: signinlogs}\ndetection:\n  s:\n    status.errorCode: 1\n  condition: s\nlevel: low\n".write(toFile: folder + "/r.yml", atomically: true, encoding: .utf8)
        try """
        tenant: contoso.onmicrosoft.com
        client_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c
        rules: [r.yml]
        notifiers:
          - name: hook
            type: webhook
            url: https://hooks.example/x
            secret_file: \(folder)/missing-secret
        """.write(toFile: folder + "/config.yml", atomically: true, encoding: .utf8)
        let environment = ["TOPHHIE_STATE_DIR": folder]
        for command in [["poll"], ["doctor"], ["notify", "test"]] {
            let (code, output) = await run(command + ["--config", folder + "/config.yml"], environment)
            #expect(code == .usage, "\(command): \(output.err) \(output.out)")
        }
        let (_, doctor) = await run(["doctor", "--config", folder + "/config.yml"], environment)
        #expect(doctor.out.contains("  FAIL  notifier hook (webhook): "), "\(doctor.out)")
        #expect(doctor.out.contains("missing-secret"))
    }

    @Test func doctorNamesAMissingRulesFolderAndGivesJSON() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = ["TOPHHIE_STATE_DIR": folder, "TOPHHIE_TENANT": "contoso.onmicrosoft.com", "TOPHHIE_CLIENT_ID": "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c"]
        let (code, doctor) = await run(["doctor", "--rules", folder + "/no-rules"], environment)
        #expect(code == .usage)
        #expect(doctor.out.contains("  FAIL  rules: "), "\(doctor.out)")
        #expect(doctor.out.contains(folder + "/no-rules"))
        let (jsonCode, json) = await run(["doctor", "--json", "--rules", folder + "/no-rules"], environment)
        #expect(jsonCode == .usage)
        let value = try JSONValue.parse(Data(json.out.utf8))
        #expect(value["exitCode"] == .int(2))
        #expect(value.value(atPath: "checks.1.status") == .string("fail"))
        #expect(value.value(atPath: "checks.1.check") == .string("rules"))
        #expect(value.value(atPath: "checks.1.fix")?.stringValue?.contains("--rules") == true)
    }

    /// A syslog notifier on a socket nothing listens at fails doctor (it passed before), and a
    /// listening one passes.
    @Test func doctorChecksTheSyslogSocket() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/config.yml"
        try "tenant: contoso.onmicrosoft.com\nclient_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c\nstate_dir: \(folder)\nnotifiers:\n  - name: local\n    type: syslog\n    address: \(folder)/log.sock\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (code, doctor) = await run(["doctor", "--config", config, "--rules", RulesTestPaths.rules])
        #expect(code == .usage)
        #expect(doctor.out.contains("  FAIL  notifier local (syslog): nothing receives at \(folder)/log.sock (connect to unix socket \(folder)/log.sock: No such file or directory)"), "\(doctor.out)")
        let listener = try ListeningSocket.bindUnixDatagram(path: folder + "/log.sock")
        defer { _ = listener }
        let (_, again) = await run(["doctor", "--config", config, "--rules", RulesTestPaths.rules])
        #expect(again.out.contains("  ok    notifier local (syslog): options and secrets readable"), "\(again.out)")
    }

    /// `notify test` ids differ even within one second: a receiver that dedupes by id keeps both.
    @Test func notifyTestIDsAreUniqueWithinASecond() {
        let now = Date(timeIntervalSince1970: 1_764_680_000)
        #expect(NotifyTestCommand.sampleAlert(now: now).id != NotifyTestCommand.sampleAlert(now: now).id)
    }

    @Test func quietPollSaysNothingWhenAllWentWellAndEverythingWhenNot() async throws {
        let context = try await AccountCommandTests.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let rules = context.stateDirectory + "/quiet-rules"
        try FileManager.default.createDirectory(atPath: rules, withIntermediateDirectories: true)
        try AgentHealthCommandTests.rules.write(toFile: rules + "/r.yml", atomically: true, encoding: .utf8)
        #expect(await run(["login"], context).0 == .ok)
        let (baselineCode, baseline) = await run(["poll", "--quiet", "--rules", rules], context)
        #expect(baselineCode == .ok, "\(baseline.err)")
        #expect(baseline.err.isEmpty && baseline.out.isEmpty, "the first poll's history is the baseline: \(baseline.err)\(baseline.out)")
        // A failed password after the baseline: quiet, the poll still delivers its alert.
        let user = SimulateCommand.defaultScenario().user
        var factory = SignInFactory(seed: 4, account: .init(userID: user.id, userPrincipalName: user.userPrincipalName, displayName: "Jane"))
        context.clock.advance(by: 300)
        await context.tenant.addSignIns([factory.signIn(at: context.clock.now().addingTimeInterval(-60), place: .lagos, errorCode: 50126)], latencySeconds: 0)
        let (code, quiet) = await run(["poll", "--quiet", "--rules", rules], context)
        #expect(code == .ok, "\(quiet.err)")
        #expect(quiet.err.isEmpty, "\(quiet.err)")
        #expect(quiet.out.contains("test-failed"), "alerts are still delivered: \(quiet.out)")
        context.clock.advance(by: 300)
        let (loudCode, loud) = await run(["poll", "--rules", rules], context)
        #expect(loudCode == .ok)
        #expect(loud.err.contains(" alert"), "\(loud.err)")
        // A cycle that fails says everything it held back.
        _ = await context.tenant.revokeRefreshTokens()
        context.clock.advance(by: 7200)
        let (failedCode, failed) = await run(["poll", "--quiet", "--rules", rules], context)
        #expect(failedCode == .signInNeeded)
        #expect(!failed.err.isEmpty)
        let (missingCode, missing) = await run(["poll", "--quiet", "--rules", context.stateDirectory + "/nowhere"], context)
        #expect(missingCode == .usage)
        #expect(missing.err.contains("cannot read rules"), "\(missing.err)")
    }

    @Test func loginRefusesAnUnwritableStateDirectoryBeforeAskingForACode() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "a file".write(toFile: folder + "/not-a-folder", atomically: true, encoding: .utf8)
        let state = folder + "/not-a-folder/state"
        let (code, login) = await run(["login", "--tenant", "contoso.onmicrosoft.com", "--client-id", "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c", "--state-dir", state])
        #expect(code == .usage, "a configuration-class failure, as poll's")
        #expect(!login.out.contains("To sign in"), "no device code was asked for")
        #expect(login.err.hasPrefix("tophhie-watch login: error: token cache: cannot write to the state directory \(state) ("), "\(login.err)")
        #expect(login.err.contains("sign-in was not started"))
    }

    @Test func notifyTestGivesJSON() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "tenant: contoso.onmicrosoft.com\nclient_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c\nnotifiers:\n  - name: console\n    type: stdout\n    format: json\n".write(toFile: folder + "/config.yml", atomically: true, encoding: .utf8)
        let (code, output) = await run(["notify", "test", "--json", "--config", folder + "/config.yml"])
        #expect(code == .ok)
        let value = try JSONValue.parse(Data(output.out.utf8))
        #expect(value == .object(["exitCode": .int(0), "notifiers": .array([.object(["name": .string("console"), "type": .string("stdout"), "result": .string("delivered")])])]))
        #expect(output.err.contains("\"rule\":{\"author\":\"Tophhie Watch\""), "the sample alert went to standard error")
    }
}

/// A sample alert for the CLI tests.
enum NotifierTestAlertsForCLI {
    static func alert() -> Alert {
        let time = Date(timeIntervalSince1970: 1_788_000_000)
        return Alert(id: "a-1", rule: AlertRule(id: "r", title: "Failed sign-in burst", level: .high, tags: [], author: "Tophhie"), level: .high, summary: "5 failed sign-ins", group: [], events: [], firstEventTime: time, lastEventTime: time, detectedAt: time, late: false)
    }
}

final class LinesSeen: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
