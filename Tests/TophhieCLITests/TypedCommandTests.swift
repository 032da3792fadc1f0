import Foundation
import Testing
@testable import TophhieCLI

/// A command only the tests have, to show that what one declaration says reaches help,
/// completion, the manual page and parsing alike.
enum ProbeCommand: CLICommand {
    enum Colour: String, Sendable, CaseIterable { case red, green }

    struct Options: OptionGroup {
        var count: Option<Int> = .integer("count", in: 1...3, default: 1, help: "how many times")
    }

    static let about = CommandAbout(path: ["probe"], summary: "A command for the tests")

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        io.out("count \(options.count)\n")
        return .ok
    }
}

/// The probe with one option more, added in one place: its `Options`.
enum WiderProbeCommand: CLICommand {
    struct Options: OptionGroup {
        var probe = ProbeCommand.Options()
        var colour: Option<ProbeCommand.Colour> = .choice("colour", among: ProbeCommand.Colour.allCases, default: .red, help: "the probe's colour")
    }

    static let about = ProbeCommand.about

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        io.out("count \(options.probe.count) colour \(options.colour.rawValue)\n")
        return .ok
    }
}

/// Issue 42: each command's options are declared once, as typed properties, and help,
/// completion, the manual page and parsing are made from that declaration.
@Suite(.timeLimit(.minutes(20))) struct TypedCommandTests {
    func run(_ arguments: [String]) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: [:], transport: AccountCommandTests.noNetwork))
        return (code, recorder)
    }

    func run<Command: CLICommand>(_ command: Command.Type, _ arguments: [String]) async -> (ExitCode, String) {
        let recorder = CommandOutputRecorder()
        do {
            let code = try await command.run(parsed: try ParsedArguments(arguments, spec: command.spec), io: recorder.io)
            return (code, recorder.out)
        } catch {
            return (.usage, "\(error)")
        }
    }

    @Test func bashCompletesTheValuesOfAnOptionAfterIt() throws {
        let script = try #require(ShellCompletion.script(for: "bash", TophhieCommandLine.commands))
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "history", "--stream", ""]) == ["all", "interactive", "non-interactive"])
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "history", "--top", "5", "--stream", "non"]) == ["non-interactive"])
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "replay", "--format", ""]) == ["text", "json"])
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "completion", ""]).filter { !$0.hasPrefix("-") } == ["bash", "zsh", "fish"])
        // A file option offers files, not options.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "x".write(to: folder.appendingPathComponent("config.yml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("state"), withIntermediateDirectories: true)
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "poll", "--config", "c"], in: folder.path) == ["config.yml"])
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "poll", "--state-dir", ""], in: folder.path) == ["state"])
        // Options still complete where an option may come.
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "history", "--st"]) == ["--state-dir", "--stream"])
        #expect(try CompletionInBash.offers(script, ["tophhie-watch", "rep"]) == ["replay", "report"])
    }

    @Test func zshAndFishCompleteTheSameValues() throws {
        let zsh = try #require(ShellCompletion.script(for: "zsh", TophhieCommandLine.commands))
        #expect(zsh.contains(#"(*"|--stream")) compadd -- all interactive non-interactive; return ;;"#), "\(zsh)")
        let fish = try #require(ShellCompletion.script(for: "fish", TophhieCommandLine.commands))
        #expect(fish.contains("complete -c tophhie-watch -n '__fish_seen_subcommand_from history' -l stream -x -a 'all interactive non-interactive'"))
        #expect(fish.contains("complete -c tophhie-watch -n '__fish_seen_subcommand_from poll' -l config -r -F"))
        #expect(fish.contains("complete -c tophhie-watch -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'"))
    }

    @Test(arguments: [
        (["rpelay"], "tophhie-watch: unknown command 'rpelay' (did you mean 'replay'?); see 'tophhie-watch --help'\n"),
        (["rules", "chek", "rules/"], "tophhie-watch: unknown command 'rules chek rules/' (did you mean 'rules check'?); see 'tophhie-watch --help'\n"),
        (["outbox", "retyr"], "tophhie-watch: unknown command 'outbox retyr' (did you mean 'outbox retry'?); see 'tophhie-watch --help'\n"),
        (["help", "rpelay"], "tophhie-watch: no help for 'rpelay': no such command (did you mean 'replay'?); see 'tophhie-watch --help'\n"),
        (["frobnicate"], "tophhie-watch: unknown command 'frobnicate'; see 'tophhie-watch --help'\n"),
        (["history", "--josn"], "tophhie-watch history: unknown option '--josn' for 'tophhie-watch history' (did you mean '--json'?)\nsee 'tophhie-watch history --help'\n"),
    ])
    func aMistypedCommandOrOptionIsSuggestedItsNearestName(_ arguments: [String], _ message: String) async {
        let (code, output) = await run(arguments)
        #expect(code == .usage)
        #expect(output.err == message)
        #expect(output.out == "")
    }

    @Test(arguments: [
        (["history", "--stream", "tokens"], "tophhie-watch history: option '--stream' takes all, interactive or non-interactive, not 'tokens'\n"),
        (["replay", "x.json", "--lookback", "soon"], "tophhie-watch replay: option '--lookback' takes a duration like 24h or 90m, not 'soon'\n"),
        (["report", "--since", "0s"], "tophhie-watch report: option '--since' takes a duration like 7d or 30d, not '0s'\n"),
        (["replay", "x.json", "--input", "xml"], "tophhie-watch replay: option '--input' takes graph, azure-monitor, log-analytics, csv, admin-center-csv, not 'xml'\n"),
        (["simulate", "--port", "70000"], "tophhie-watch simulate: option '--port' takes a whole number from 0 to 65535, not '70000'\n"),
        (["rules", "check", "--api", "v2"], "tophhie-watch rules check: option '--api' takes beta or v1.0, not 'v2'\n"),
    ])
    func parsingRefusesAValueWithTheOptionsNameAndWhatItTakes(_ arguments: [String], _ message: String) async {
        let (code, output) = await run(arguments)
        #expect(code == .usage)
        #expect(output.err == message + "see '\(message.prefix { $0 != ":" }) --help'\n")
    }

    /// The probe's second option is written once, in `WiderProbeCommand.Options`; help, every
    /// shell's completion, the manual page and the parser all have it, and the probe without it
    /// has it in none of them.
    @Test func anOptionDeclaredOnceReachesHelpCompletionManualPageAndParsing() async throws {
        let narrow = HelpText.render(ProbeCommand.spec), wide = HelpText.render(WiderProbeCommand.spec)
        #expect(narrow.contains("  --count N"))
        #expect(!narrow.contains("--colour"))
        #expect(wide.contains("  --count N"))
        #expect(wide.contains("  --colour red|green"))
        #expect(wide.contains("the probe's colour"))

        let bash = try #require(ShellCompletion.script(for: "bash", [WiderProbeCommand.self]))
        #expect(try CompletionInBash.offers(bash, ["tophhie-watch", "probe", "--colour", ""]) == ["red", "green"])
        #expect(try CompletionInBash.offers(bash, ["tophhie-watch", "probe", "--c"]) == ["--count", "--colour"])
        let narrowBash = try #require(ShellCompletion.script(for: "bash", [ProbeCommand.self]))
        #expect(try CompletionInBash.offers(narrowBash, ["tophhie-watch", "probe", "--c"]) == ["--count"])
        #expect(try #require(ShellCompletion.script(for: "zsh", [WiderProbeCommand.self])).contains("compadd -- red green"))
        #expect(try #require(ShellCompletion.script(for: "fish", [WiderProbeCommand.self])).contains("-l colour -x -a 'red green'"))
        #expect(ManualPage.render([WiderProbeCommand.self]).contains(ManualPage.escape("  --colour red|green")))

        #expect(await run(WiderProbeCommand.self, ["--colour", "green", "--count", "2"]) == (.ok, "count 2 colour green\n"))
        #expect(await run(WiderProbeCommand.self, []) == (.ok, "count 1 colour red\n"))
        #expect(await run(WiderProbeCommand.self, ["--colour", "blue"]) == (.usage, "option '--colour' takes red or green, not 'blue'"))
        #expect(await run(ProbeCommand.self, ["--colour", "green"]) == (.usage, "unknown option '--colour' for 'tophhie-watch probe'"))
    }

    /// Every command's options have names of their own: a second `--json` would shadow the first.
    @Test func everyCommandDeclaresEachOptionOnce() {
        for command in TophhieCommandLine.commands {
            let names = command.spec.options.map(\.name)
            #expect(Set(names).count == names.count, "\(command.spec.displayName): \(names)")
        }
    }
}
