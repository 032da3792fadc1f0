import Foundation
import TophhieAuth

/// A webhook URL that passed the security checks: HTTPS, or plain HTTP only to this machine.
///
/// Chat webhook URLs (Slack, Discord, Teams) carry their credential in the path, so the URL is
/// never printed whole: `description` shows the scheme, host and port only.
public struct WebhookEndpoint: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let url: URL

    /// - Throws: `WebhookSettingError` when the URL is malformed, not HTTP(S), carries a user name
    ///   or password, names an IPv6 address, or uses plain HTTP to anything but loopback
    ///   (127.0.0.0/8, localhost).
    public init(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, let url = components.url else {
            throw WebhookSettingError("the webhook URL is not a valid absolute URL")
        }
        guard scheme == "https" || scheme == "http" else {
            throw WebhookSettingError("the webhook URL must use https, not \"\(ControlCharacterEscaping.escape(scheme))\"")
        }
        guard components.user == nil, components.password == nil else {
            throw WebhookSettingError("the webhook URL must not contain a user name or password; use the signing secret instead")
        }
        // swift-corelibs-foundation's URLSession refuses a URL whose host is an IPv6 literal
        // (NSURLErrorBadURL, -1000) before connecting: accepted, it would never deliver.
        if host.contains(":") {
            throw WebhookSettingError("the webhook URL's host is an IPv6 address (\(ControlCharacterEscaping.escape(host))), which this build's HTTP client cannot reach; use a host name: http://localhost:PORT reaches a receiver listening on ::1")
        }
        if scheme == "http", !Self.isLoopback(host) {
            throw WebhookSettingError("the webhook URL must use https (plain http is allowed only to 127.0.0.1 or localhost, not \(ControlCharacterEscaping.escape(host)))")
        }
        self.url = url
    }

    /// ntfy's topic: the last segment of the URL's path (`https://ntfy.sh/<topic>`), 1–64 of
    /// letters, digits, `-` and `_`; nil when the URL names none.
    public var ntfyTopic: String? {
        let topic = url.path.split(separator: "/").last.map(String.init) ?? ""
        guard (1...64).contains(topic.count), topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        return topic
    }

    /// The server root of an ntfy topic URL: the URL without its last path segment, ending in
    /// `/` (a server under a path prefix keeps the prefix).
    static func ntfyRoot(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var segments = components.path.split(separator: "/").map(String.init)
        if !segments.isEmpty { segments.removeLast() }
        components.path = "/" + segments.map { $0 + "/" }.joined()
        components.query = nil
        components.fragment = nil
        return components.url ?? url
    }

    /// Whether `host` names this machine: 127.0.0.0/8, ::1 or localhost.
    public static func isLoopback(_ host: String) -> Bool {
        TophhieConfiguration.isLoopbackHost(host)
    }

    /// `https://hooks.slack.com/…`: enough to tell endpoints apart, never the credential.
    public var description: String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var text = "\(components?.scheme ?? "https")://\(components?.host ?? "?")"
        if let port = components?.port { text += ":\(port)" }
        return text + "/…"
    }

    public var debugDescription: String { description }
    // `dump` walks the mirror; an empty one keeps the credential-bearing path out of it.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// A bad webhook setting, in words; never contains a secret or a full URL.
public struct WebhookSettingError: Error, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
