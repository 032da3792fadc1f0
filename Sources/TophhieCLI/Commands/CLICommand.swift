import Foundation
import TophhieSystem
import TophhieAgent

/// Where a command writes and what it knows of its surroundings; tests substitute a recorder.
public struct CommandIO: Sendable {
    public var out: @Sendable (String) -> Void
    /// Where the stdout notifier writes alerts: like `out`, but a failed write is reported to it
    /// (a full disk, a closed pipe) so the alert stays queued instead of being lost.
    public var alertOut: @Sendable (String) throws -> Void
    public var err: @Sendable (String) -> Void
    /// Whether standard output is a terminal (colour, progress).
    public var outIsTerminal: Bool
    public var errIsTerminal: Bool
    /// Whether to colour standard output: a terminal, and no non-empty `NO_COLOR` (no-color.org).
    public var colourOnOutput: Bool { outIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty }
    public var environment: [String: String]
    /// How commands reach Graph, the identity platform and webhooks; tests pass an embedded one.
    public var transport: any HTTPTransport
    /// Where commands read the time and wait (device-code polling, retries); tests pass a manual one.
    public var clock: any TophhieClock
    /// The system-wide config file looked for after the user's (`ConfigFileSearch`); tests
    /// point it where nothing is.
    public var systemConfigFile = ConfigFileSearch.systemFile
    /// Reads a line typed on the terminal, for a question asked before something that cannot be
    /// undone; nil when standard input is no terminal (then nothing may be asked).
    public var readAnswer: (@Sendable () -> String?)?

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, outIsTerminal: Bool = false, errIsTerminal: Bool = false, environment: [String: String] = [:], transport: any HTTPTransport = URLSessionTransport(), clock: any TophhieClock = SystemClock()) {
        self.transport = transport
        self.clock = clock
        self.alertOut = out
        self.out = out
        self.err = err
        self.outIsTerminal = outIsTerminal
        self.errIsTerminal = errIsTerminal
        self.environment = environment
    }

    /// The process's real standard streams and environment.
    public static func standard() -> CommandIO {
        StandardStream.ignoreBrokenPipes()
        var io = CommandIO(
            // A reader that went away (`| head`) or a full disk ends human output quietly; the
            // stdout notifier uses `alertOut`, which reports the failure instead.
            out: { text in try? StandardStream.write(text, to: StandardStream.output) },
            err: { text in try? StandardStream.write(text, to: StandardStream.error) },
            outIsTerminal: ProcessFacts.isTerminal(StandardStream.output),
            errIsTerminal: ProcessFacts.isTerminal(StandardStream.error),
            environment: ProcessInfo.processInfo.environment)
        io.alertOut = { text in try StandardStream.write(text, to: StandardStream.output) }
        // Standard input (descriptor 0) a person types on: a question may be asked.
        if ProcessFacts.isTerminal(0) { io.readAnswer = { readLine() } }
        return io
    }
}

/// A command: what it says about itself, its options as one typed declaration, and a run
/// that validates, then acts.
protocol CLICommand: Sendable {
    /// The options, declared once as properties; the spec, help, completion and parsing read them.
    associatedtype Options: OptionGroup = NoOptions
    static var about: CommandAbout { get }
    /// Whether it reads a file of sign-ins on several threads at once, each best served by a
    /// malloc heap of its own (`MallocArenas`).
    static var readsOnSeveralThreads: Bool { get }
    /// Runs with the parsed options; throws `UsageError` for bad input, other errors for failures.
    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode
}

extension CLICommand {
    static var readsOnSeveralThreads: Bool { false }

    /// The command's spec: its `about` with the options its `Options` declares.
    static var spec: CommandSpec { CommandSpec(about, options: Options.declarations) }

    /// Runs with arguments parsed against `spec`.
    static func run(parsed arguments: ParsedArguments, io: CommandIO) async throws -> ExitCode {
        try await run(ParsedOptions<Options>(arguments), io: io)
    }
}
