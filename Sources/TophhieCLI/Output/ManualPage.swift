import TophhieSystem
/// The manual page, `tophhie-watch.1`, built from the very help text the commands print, so the
/// two cannot say different things.
enum ManualPage {
    static func render(_ commands: [any CLICommand.Type]) -> String {
        var lines = [
            #".TH TOPHHIE-WATCH 1 "" "tophhie-watch \#(ProductVersion.number)" "User Commands""#,
            ".SH NAME",
            #"tophhie-watch \- watches your own Microsoft Entra sign-ins and alerts when something is wrong"#,
            ".SH SYNOPSIS",
            ".B tophhie-watch",
            #"\fIcommand\fR [\fIoptions\fR]"#,
            ".br",
            ".B tophhie-watch",
            #"\-\-version | help [\fIcommand\fR]"#,
            ".SH DESCRIPTION",
            "Polls the signed-in user's own sign-in log in Microsoft Graph, runs Sigma rules over it and",
            "delivers alerts to standard output, syslog or signed webhooks. It also reads and edits the",
            "user's own profile.",
            ".SH COMMANDS",
        ]
        for command in commands {
            lines.append(#".SS "\#(command.spec.displayName)""#)
            lines.append(".nf")
            lines += HelpText.render(command.spec).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { escape(String($0)) }
            lines.append(".fi")
        }
        lines += [
            ".SH EXIT STATUS",
            ".TP", "0", "ok",
            ".TP", "1", "a runtime failure (network, Graph, a receiver)",
            ".TP", "2", "a usage or configuration error; nothing was done",
            ".TP", "3", "sign-in needed: run tophhie-watch login",
            ".TP", "4", "Graph refused access (licence, role or consent)",
            ".SH ENVIRONMENT",
            #"TOPHHIE_CONFIG, TOPHHIE_TENANT, TOPHHIE_CLIENT_ID, TOPHHIE_AUTHORITY, TOPHHIE_GRAPH_URL, TOPHHIE_STATE_DIR, TOPHHIE_RULES; NO_COLOR turns colour off; TMPDIR (else /tmp) holds the nameless scratch file a replay of a large file in no time order sorts its index in."#,
            ".SH FILES",
            #"~/.local/state/tophhie-watch (the state directory: tokens.json, state.json, engine-<n>.json, outboxes); /usr/local/share/tophhie-watch/rules (the default rules of an installed agent)."#,
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A line of text as roff shows it verbatim: backslashes as `\e`, hyphens as `\-`, anything
    /// outside ASCII as groff's `\[uXXXX]` (so no input encoding is assumed), and a leading `.`
    /// or `'` guarded so it is not read as a request.
    static func escape(_ line: String) -> String {
        var text = ""
        for scalar in line.unicodeScalars {
            switch scalar {
            case "\\": text += "\\e"
            case "-": text += "\\-"
            default:
                if scalar.isASCII { text.unicodeScalars.append(scalar) } else {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    text += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                }
            }
        }
        if text.hasPrefix(".") || text.hasPrefix("'") { text = "\\&" + text }
        return text
    }
}
