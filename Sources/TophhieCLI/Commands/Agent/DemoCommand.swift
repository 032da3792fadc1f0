import Foundation
import TophhieRules
import TophhieDemo
import TophhieAgent

/// `demo`: the first thing to run — no tenant, no configuration.
enum DemoCommand: CLICommand {
    struct Options: OptionGroup {
        var rules: Option<[String]> = .list("rules", value: "PATH", kind: .path, help: "rule files or folders (default: ./rules or $TOPHHIE_RULES)")
        var fast: Option<Bool> = .flag("fast", help: "no pauses between polls")
        var report: Option<String?> = .file("report", help: "where to write the report page of the demo's month (default tophhie-watch-demo-report.html in $TMPDIR)")
    }

    static let about = CommandAbout(
        path: ["demo"],
        summary: "Watch the agent catch a scripted attack on a simulated tenant (no setup needed)",
        discussion: """
        Starts a simulated tenant with a normal month of sign-ins, signs in with a device code, and
        runs the real agent loop on an accelerated clock (a 5-minute poll interval passes in a
        blink) while the story unfolds: a burst of failures from a new country that Graph
        publishes three hours late, a success after failures from one address, impossible travel,
        and a throttling storm. Alerts print as they fire; the story goes to standard error. At
        the end it writes the report page of the month ('tophhie-watch report') and names it.

        examples:
          tophhie-watch demo
          tophhie-watch demo --fast --report month.html
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        var paths = options.rules
        if paths.isEmpty {
            paths = ConnectionOptions.defaultRulePaths(io)
        }
        var runner = DemoRunner(rulePaths: paths, write: io.out, narrate: { io.err($0 + "\n") }, colour: io.colourOnOutput, pace: options.fast ? 0 : 0.05)
        runner.engine = try EngineChoice.named(in: io, default: .plain)
        let scratch = io.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        runner.reportPath = options.report ?? (scratch as NSString).appendingPathComponent("tophhie-watch-demo-report.html")
        let alerts = try await runner.run()
        return alerts.contains { $0.kind == .detection } ? .ok : .failure
    }
}
