import Foundation
import TophhieRules
import TophhieSystem

/// Mails each alert through the local sendmail (msmtp, postfix, exim, nullmailer all provide it):
/// one RFC 5322 message per alert on its standard input, run as `sendmail -i -f FROM -- TO…`.
///
/// The recipients go as arguments, never read from the headers (`-t`), so no text in a message
/// can add one. sendmail's exit status decides, through the outbox as for webhooks: 0 delivered;
/// 67 (EX_NOUSER) and 68 (EX_NOHOST) will fail the same way again, so the alert is
/// dead-lettered at once; 75 (EX_TEMPFAIL), any other status, a signal or a program that cannot
/// be started are retried with back-off. A sendmail still running at `timeout` is killed.
public struct EmailNotifier: Notifier {
    public struct Settings: Sendable, Hashable {
        public var to: [String]
        public var from: String
        public var sendmail: String
        public var timeout: Duration

        /// - Throws: `WebhookSettingError` for an address that is not a plain `local@domain`,
        ///   a sendmail path that is not absolute, or a timeout that is not positive.
        public init(to: [String], from: String, sendmail: String = "/usr/sbin/sendmail", timeout: Duration = .seconds(30)) throws {
            guard !to.isEmpty else { throw WebhookSettingError("an email notifier needs 'to': one or more addresses") }
            for address in to + [from] where !Self.isPlainAddress(address) {
                throw WebhookSettingError("'\(ControlCharacterEscaping.escape(address))' is not a plain mail address (local@domain, ASCII, no spaces, not starting with '-')")
            }
            guard sendmail.hasPrefix("/") else { throw WebhookSettingError("sendmail must be an absolute path, not '\(ControlCharacterEscaping.escape(sendmail))'") }
            guard timeout > .zero else { throw WebhookSettingError("the email timeout must be more than zero") }
            self.to = to
            self.from = from
            self.sendmail = sendmail
            self.timeout = timeout
        }

        /// `local@domain` in printable ASCII, without the characters of display names, lists,
        /// routes or comments, and not an option (`-`).
        static func isPlainAddress(_ text: String) -> Bool {
            text.range(of: #"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~][A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]*@[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$"#, options: .regularExpression) != nil
                && text.count <= 254
        }
    }

    /// Runs sendmail: path, arguments, standard input, timeout in seconds.
    public typealias Submit = @Sendable (String, [String], Data, Double) async throws -> Subprocess.Outcome

    public let name: String
    public let settings: Settings
    private let host: String
    private let submit: Submit

    /// - Parameters:
    ///   - submit: how sendmail is run; a subprocess on the blocking-work pool by default.
    public init(name: String = "mail", settings: Settings, host: String = EmailNotifier.hostName(),
                submit: @escaping Submit = { try await Subprocess.runAsync($0, arguments: $1, input: $2, timeout: $3) }) {
        self.name = name
        self.settings = settings
        self.host = host
        self.submit = submit
    }

    /// This machine's name as a mail domain, `localhost` when it has none usable.
    public static func hostName() -> String {
        let name = ProcessFacts.hostName() ?? ""
        return name.range(of: "^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$", options: .regularExpression) != nil ? name : "localhost"
    }

    /// The default sender: `tophhie-watch@<host name>`.
    public static func defaultFrom() -> String { "tophhie-watch@" + hostName() }

    /// The arguments sendmail is given: `-i -f FROM -- TO…`.
    public var arguments: [String] { ["-i", "-f", settings.from, "--"] + settings.to }

    /// The message for `alert`, as written to sendmail.
    public func message(for alert: Alert) -> String {
        EmailMessage.text(for: alert, from: settings.from, to: settings.to, messageHost: host)
    }

    public func deliver(_ alert: Alert) async throws {
        let seconds = WebhookNotifier.seconds(settings.timeout)
        let outcome: Subprocess.Outcome
        do {
            outcome = try await submit(settings.sendmail, arguments, Data(message(for: alert).utf8), seconds)
        } catch let error as Subprocess.LaunchError {
            throw NotifierError.transient("email: \(error)")
        }
        let said = Self.firstLine(outcome.output).map { ": \($0)" } ?? ""
        switch outcome.ending {
        case .exited(0):
            return
        case .exited(67):
            throw NotifierError.permanent("email: \(settings.sendmail) exited 67 (EX_NOUSER: no such user)\(said)")
        case .exited(68):
            throw NotifierError.permanent("email: \(settings.sendmail) exited 68 (EX_NOHOST: no such host)\(said)")
        case .exited(75):
            throw NotifierError.transient("email: \(settings.sendmail) exited 75 (EX_TEMPFAIL: try again later)\(said)")
        case .exited(let status):
            throw NotifierError.transient("email: \(settings.sendmail) exited \(status)\(said)")
        case .signalled(let signal):
            throw NotifierError.transient("email: \(settings.sendmail) was ended by signal \(signal)\(said)")
        case .timedOut:
            throw NotifierError.transient("email: \(settings.sendmail) did not finish within \(HTTPTransportError.seconds(seconds)) and was killed")
        }
    }

    /// The first line sendmail wrote, escaped and cut: its reason, for the operator.
    static func firstLine(_ output: Data) -> String? {
        let text = String(decoding: output, as: UTF8.self)
        guard let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { return nil }
        return WebhookPreset.truncate(ControlCharacterEscaping.escape(line), 200, .characters)
    }
}
