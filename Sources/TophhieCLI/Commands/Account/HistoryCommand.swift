import Foundation
import TophhieAuth
import TophhieAgent
import TophhieJSON

/// `history`: your recent sign-ins as a table or JSON.
enum HistoryCommand: CLICommand {
    /// Which sign-ins `--stream` asks for.
    enum Stream: String, Sendable, CaseIterable {
        case all, interactive
        case nonInteractive = "non-interactive"

        /// The streams to read; nil for every stream the API has.
        var streams: [SignInStream]? {
            switch self {
            case .all: nil
            case .interactive: [.interactive]
            case .nonInteractive: [.nonInteractive]
            }
        }
    }

    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var top: Option<Int> = .integer("top", in: 1...10_000, default: 20, help: "how many sign-ins, 1 to 10000 (default 20)")
        var json: Option<Bool> = .flag("json", help: "print the events as Graph sent them, one JSON object per line")
        var stream: Option<Stream> = .choice("stream", among: Stream.allCases, default: .all, help: "which sign-ins: yours (interactive), your apps' token renewals (non-interactive), or both (default)")
    }

    static let about = CommandAbout(
        path: ["history"],
        summary: "List your recent sign-ins, newest first (GET /auditLogs/signIns, self-filtered)",
        discussion: """
        Reads only your own sign-ins: every request carries $filter=userId eq '<your object id>'.
        Needs AuditLog.Read.All (admin consent), an Entra ID P1/P2 tenant, and, on most tenants, a
        reporting role; 'tophhie-watch doctor' checks each. Only sign-ins inside the tenant's
        retention (7 or 30 days) come back, and a new sign-in can take minutes to hours to appear.
        With graph.api beta (the default) both streams are read: the sign-ins you made, and the
        non-interactive ones your apps made with a token they hold; v1.0 has the first only.

        columns: time (UTC), stream, result (ok, or failed with the error code), app, location, device, IP

        examples:
          tophhie-watch history
          tophhie-watch history --stream non-interactive --top 50
          tophhie-watch history --top 100 --json | jq .ipAddress
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let auth = TophhieAuth(configuration: try ConnectionOptions.authConfiguration(options.connection, io: io), transport: io.transport, clock: io.clock)
        let events = try await auth.getSignInHistory(top: options.top, streams: options.stream.streams)
        if options.json {
            // JSONEncoder escapes C0 only; DEL, C1, bidi and line separators from device names
            // would still reach a terminal.
            for event in events { io.out(ControlCharacterEscaping.hardenJSON(String(decoding: event.json.canonicalData(), as: UTF8.self)) + "\n") }
            return .ok
        }
        if events.isEmpty {
            io.out("No sign-ins in the retention window. New sign-ins can take minutes to hours to appear.\n")
            return .ok
        }
        io.out(render(events))
        return .ok
    }

    /// The table; every field from Graph is escaped, since device and app names are attacker-controlled.
    static func render(_ events: [TophhieSignInEvent]) -> String {
        let header = ["TIME (UTC)", "STREAM", "RESULT", "APP", "LOCATION", "DEVICE", "IP"]
        let rows = events.map { event -> [String] in
            [
                GraphTimestamp.filterText(event.createdDateTime).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: ""),
                event.stream.words,
                event.wasSuccessful ? "ok" : "failed \(event.status.errorCode)",
                clip(event.appDisplayName, 28),
                clip(event.locationText, 24),
                clip(event.deviceText, 30),
                clip(event.ipAddress, 39),
            ]
        }
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in i == cells.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    static func clip(_ text: String?, _ limit: Int) -> String {
        guard let text, !text.isEmpty else { return "—" }
        let escaped = ControlCharacterEscaping.escape(text)
        return escaped.count <= limit ? escaped : String(escaped.prefix(limit - 1)) + "…"
    }
}
