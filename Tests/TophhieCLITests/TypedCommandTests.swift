import Foundation
import Testing
@testable import TophhieCLI

/// Issue 42: each command's options are declared once, as typed properties; parsing checks
/// each value against its declaration.
@Suite(.timeLimit(.minutes(2))) struct TypedCommandTests {
    func run(_ arguments: [String]) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: [:], transport: AccountCommandTests.noNetwork))
        return (code, recorder)
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

    /// Every command's options have names of their own: a second `--json` would shadow the first.
    @Test func everyCommandDeclaresEachOptionOnce() {
        for command in TophhieCommandLine.commands {
            let names = command.spec.options.map(\.name)
            #expect(Set(names).count == names.count, "\(command.spec.displayName): \(names)")
        }
    }
}
