import Foundation
import TophhieSystem
import TophhieRules

/// Turns the config's notifier entries into notifiers, reading secrets from files or the
/// environment. Errors point at the entry in the config file and never quote a secret.
public struct NotifierFactory: Sendable {
    public var environment: [String: String]
    /// Whether standard output is a terminal (colour for `stdout` when `colour: auto`).
    public var outputIsTerminal: Bool
    /// Where stdout lines go; the CLI passes its writer so tests can capture it.
    public var write: (@Sendable (String) throws -> Void)?
    /// The time webhook timestamps and syslog headers carry; the demo passes its clock's.
    public var now: @Sendable () -> Date

    /// How webhooks are sent; URLSession by default, an in-process receiver in tests.
    public var transport: any HTTPTransport

    /// How the email notifier runs sendmail; a subprocess by default.
    public var submit: EmailNotifier.Submit = { try await Subprocess.runAsync($0, arguments: $1, input: $2, timeout: $3) }

    public init(environment: [String: String], outputIsTerminal: Bool, write: (@Sendable (String) throws -> Void)? = nil, now: @escaping @Sendable () -> Date = { Date() }, transport: any HTTPTransport = URLSessionTransport()) {
        self.transport = transport
        self.environment = environment
        self.outputIsTerminal = outputIsTerminal
        self.write = write
        self.now = now
    }

    /// What works but will not do what the entry's author expects, one line each.
    public func warnings(_ entry: NotifierConfiguration) -> [String] {
        var notes: [String] = []
        if entry.type == "syslog", (entry.options["transport"] ?? "unix") == "unix", entry.options["format"] == "rfc5424" {
            notes.append(entry.warning("format rfc5424 to the local socket \(entry.options["address"] ?? "/dev/log"): rsyslog's imuxsock (its default special parser) and systemd-journald read the traditional RFC 3164 form there, so the RFC 5424 header and structured data arrive as message text; leave format unset (rfc3164) for the local socket, or send rfc5424 over udp or tcp"))
        }
        return notes
    }

    /// What stops a notifier that loads from delivering, found without sending: an email
    /// notifier's sendmail that is missing or not executable.
    /// - Returns: nil when nothing is found, else the reason in words.
    public static func preflight(_ notifier: any Notifier) -> String? {
        if let mail = notifier as? EmailNotifier, let why = Subprocess.whyNotExecutable(mail.settings.sendmail) {
            return "sendmail cannot run: \(why); install one (msmtp-mta, postfix, exim4 or nullmailer) or point 'sendmail' at it"
        }
        return nil
    }

    /// What `doctor` says of a notifier that passed: where it sends, and that its token is set.
    public static func describe(_ notifier: any Notifier) -> String? {
        if let mail = notifier as? EmailNotifier {
            return "\(mail.settings.sendmail) is executable; runs as: sendmail \(mail.arguments.joined(separator: " "))"
        }
        if let hook = notifier as? WebhookNotifier, hook.settings.preset.isPhone {
            return "\(hook.settings.preset.name) to \(hook.settings.endpoint), " + (hook.settings.token == nil ? "no token (an open topic)" : "token set (never shown)")
        }
        return nil
    }

    /// The notifier and its route for one entry.
    /// - Throws: `ConfigurationError` at the entry's position.
    public func make(_ entry: NotifierConfiguration) throws -> (any Notifier, NotifierRoute) {
        let route = NotifierRoute(minimumLevel: entry.minimumLevel, ruleIDs: entry.ruleIDs.map(Set.init))
        try checkKeys(entry)
        switch entry.type {
        case "stdout":
            let format: StdoutNotifier.Format
            switch entry.options["format"] ?? "text" {
            case "text": format = .text
            case "json": format = .jsonLines
            case let other: throw entry.error("format must be text or json, not '\(other)'")
            }
            let colour: Bool
            switch entry.options["colour"] ?? "auto" {
            // no-color.org: a non-empty NO_COLOR turns colour off unless the config insists.
            case "auto": colour = outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty
            case "always": colour = true
            case "never": colour = false
            case let other: throw entry.error("colour must be auto, always or never, not '\(other)'")
            }
            return (StdoutNotifier(name: entry.name, settings: .init(format: format, colour: colour), write: write), route)
        case "syslog":
            let transportName = entry.options["transport"] ?? "unix"
            let transport: SyslogNotifier.Transport
            switch transportName {
            case "unix":
                transport = .unixDatagram(path: entry.options["address"] ?? "/dev/log")
            case "udp", "tcp":
                guard let address = entry.options["address"] else { throw entry.error("a \(transportName) syslog needs 'address: host:port'") }
                let (host, port) = try hostPort(address, entry)
                transport = transportName == "udp" ? .udp(host: host, port: port) : .tcp(host: host, port: port)
            default:
                throw entry.error("transport must be udp, tcp or unix, not '\(transportName)'")
            }
            var facility = SyslogFacility.auth
            if let name = entry.options["facility"] {
                do { facility = try SyslogFacility(parsing: name) } catch { throw entry.error("\(error)") }
            }
            var format: SyslogNotifier.Format?
            if let name = entry.options["format"] {
                guard let parsed = SyslogNotifier.Format(rawValue: name) else { throw entry.error("format must be rfc5424 or rfc3164, not '\(name)'") }
                format = parsed
            }
            var maxBytes: Int?
            if let text = entry.options["max_message_bytes"] {
                guard let value = Int(text), (480...65_000).contains(value) else {
                    throw entry.error("max_message_bytes must be a whole number from 480 (the least RFC 5424 lets a receiver take) to 65000, not '\(text)'")
                }
                maxBytes = value
            }
            return (SyslogNotifier(name: entry.name, settings: .init(transport: transport, facility: facility, format: format, maxMessageBytes: maxBytes), now: now), route)
        case "webhook":
            guard let url = entry.options["url"] else { throw entry.error("a webhook needs 'url'") }
            let endpoint: WebhookEndpoint
            do { endpoint = try WebhookEndpoint(url) } catch { throw entry.error("\(error)") }
            let secretText = try secret(entry, base: "secret")
            var secrets: [WebhookSecret] = []
            if let secretText {
                do { secrets = try WebhookSecret.list(parsing: secretText) } catch { throw entry.error("the signing secret is not a whsec_ secret: \(error)") }
            }
            let secret = secrets.first
            let presetName = entry.options["preset"] ?? "generic"
            let preset: WebhookPreset
            switch presetName {
            case "generic": preset = .generic
            case "slack": preset = .slack
            case "teams": preset = .teamsWorkflows
            case "discord": preset = .discord
            case "alertmanager": preset = .alertmanager
            case "ntfy":
                guard let topic = endpoint.ntfyTopic else {
                    throw entry.error("the ntfy url names the topic: https://ntfy.sh/<topic> (1-64 letters, digits, '-' or '_')")
                }
                preset = .ntfy(topic: topic)
            case "gotify": preset = .gotify
            case "telegram":
                guard let chat = entry.options["chat_id"] else { throw entry.error("the telegram preset needs chat_id (the chat's number, or @channelname)") }
                guard chat.range(of: "^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$", options: .regularExpression) != nil else {
                    throw entry.error("chat_id must be a chat's number (as \"123456789\" or \"-100…\") or @channelname, not '\(ControlCharacterEscaping.escape(chat))'")
                }
                preset = .telegram(chatID: chat)
            case "pagerduty":
                guard let key = try self.secret(entry, base: "routing_key") else { throw entry.error("the pagerduty preset needs routing_key_file or routing_key_env") }
                do { preset = .pagerDuty(routingKey: try PagerDutyRoutingKey(key)) } catch { throw entry.error("\(error)") }
            default:
                throw entry.error("preset must be one of \(WebhookPreset.names.joined(separator: ", ")), not '\(presetName)'")
            }
            var timeout = Duration.seconds(15)
            if let text = entry.options["timeout"] {
                guard let seconds = DurationText.seconds(text), seconds > 0, seconds <= 120 else { throw entry.error("timeout must be a duration up to 2m, not '\(text)'") }
                timeout = .milliseconds(Int64(seconds * 1000))
            }
            if entry.options["chat_id"] != nil, presetName != "telegram" {
                throw entry.error("chat_id is for the telegram preset")
            }
            if entry.options["token"] != nil {
                throw entry.error("a token is read from token_env or token_file, never written in the config file")
            }
            var token: NotifierToken?
            if let text = try self.secret(entry, base: "token") {
                do { token = try NotifierToken(text) } catch { throw entry.error("\(error)") }
            }
            do {
                let settings = try WebhookNotifier.Settings(endpoint: endpoint, preset: preset, secret: secret, additionalSecrets: Array(secrets.dropFirst()), timeout: timeout, token: token)
                return (WebhookNotifier(name: entry.name, settings: settings, now: now, transport: transport), route)
            } catch {
                throw entry.error("\(error)")
            }
        case "email":
            guard let toText = entry.options["to"] else { throw entry.error("an email notifier needs 'to': one or more addresses") }
            let to = toText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            var timeout = Duration.seconds(30)
            if let text = entry.options["timeout"] {
                guard let seconds = DurationText.seconds(text), seconds > 0, seconds <= 300 else { throw entry.error("timeout must be a duration up to 5m, not '\(text)'") }
                timeout = .milliseconds(Int64(seconds * 1000))
            }
            do {
                let settings = try EmailNotifier.Settings(to: to, from: entry.options["from"] ?? EmailNotifier.defaultFrom(), sendmail: entry.options["sendmail"] ?? "/usr/sbin/sendmail", timeout: timeout)
                return (EmailNotifier(name: entry.name, settings: settings, submit: submit), route)
            } catch {
                throw entry.error("\(error)")
            }
        default:
            throw entry.error("unknown notifier type '\(entry.type)'")
        }
    }

    private func checkKeys(_ entry: NotifierConfiguration) throws {
        let allowed: [String: Set<String>] = [
            "stdout": ["format", "colour"],
            "syslog": ["transport", "address", "facility", "format", "max_message_bytes"],
            "email": ["to", "from", "sendmail", "timeout"],
            "webhook": ["url", "preset", "secret", "secret_file", "secret_env", "routing_key", "routing_key_file", "routing_key_env", "timeout", "token", "token_file", "token_env", "chat_id"],
        ]
        for key in entry.options.keys.sorted() where !(allowed[entry.type]?.contains(key) ?? false) {
            throw entry.error("unknown key '\(key)' for a \(entry.type) notifier; known: \((allowed[entry.type] ?? []).sorted().joined(separator: ", "))")
        }
    }

    /// A secret from `<base>_file`, `<base>_env` or `<base>` (in that order of preference).
    private func secret(_ entry: NotifierConfiguration, base: String) throws -> String? {
        let sources = [entry.options["\(base)_file"] != nil, entry.options["\(base)_env"] != nil, entry.options[base] != nil].filter { $0 }.count
        guard sources <= 1 else { throw entry.error("give only one of \(base), \(base)_file and \(base)_env") }
        if let path = entry.options["\(base)_file"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw entry.error("cannot read \(base)_file \(path)")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let variable = entry.options["\(base)_env"] {
            guard let value = environment[variable], !value.isEmpty else {
                throw entry.error("the environment variable \(variable) named by \(base)_env is not set")
            }
            return value
        }
        return entry.options[base]
    }

    private func hostPort(_ text: String, _ entry: NotifierConfiguration) throws -> (String, UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            throw entry.error("address must be host:port, not '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw entry.error("address must be host:port, not '\(text)'") }
        return (host, port)
    }
}
