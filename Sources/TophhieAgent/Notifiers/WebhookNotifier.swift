import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TophhieJSON
import TophhieRules
import TophhieSystem

/// POSTs each alert as JSON, signed per Standard Webhooks.
///
/// Headers: `webhook-id` (the alert id, the same on every retry so receivers can drop copies),
/// `webhook-timestamp` (this attempt), `webhook-signature: v1,…`, `content-type` and
/// `user-agent`. One call is one attempt with an overall deadline; `OutboxDelivery` retries.
/// The phone presets (ntfy, Gotify, Telegram) carry no `webhook-*` headers: their token
/// authenticates, in `Authorization: Bearer`, `X-Gotify-Key` or Telegram's URL path.
public struct WebhookNotifier: Notifier {
    public struct Settings: Sendable {
        public var endpoint: WebhookEndpoint
        public var preset: WebhookPreset
        /// Required for `.generic`; optional for chat presets whose URL is itself the credential.
        public var secret: WebhookSecret?
        /// More secrets that sign each request too, while a receiver rotates to a new one.
        public var additionalSecrets: [WebhookSecret]
        /// The whole attempt, connect to last byte. Standard Webhooks suggests 15–30 s.
        public var timeout: Duration
        public var userAgent: String
        /// PagerDuty's `source`; nil for this machine's name.
        public var source: String?
        /// The phone services' token: required for Gotify and Telegram, optional for ntfy.
        public var token: NotifierToken?

        /// - Throws: `WebhookSettingError` when the generic preset has no secret or the timeout
        ///   is not positive.
        public init(endpoint: WebhookEndpoint, preset: WebhookPreset = .generic, secret: WebhookSecret?,
                    additionalSecrets: [WebhookSecret] = [],
                    timeout: Duration = .seconds(15), userAgent: String = "tophhie-watch/\(WebhookNotifier.version)", source: String? = nil,
                    token: NotifierToken? = nil) throws {
            if preset == .generic, secret == nil {
                throw WebhookSettingError("the generic webhook needs a signing secret (whsec_…) so the receiver can verify each alert")
            }
            switch preset {
            case .gotify where token == nil:
                throw WebhookSettingError("the gotify preset needs the app token: token_env or token_file")
            case .telegram where token == nil:
                throw WebhookSettingError("the telegram preset needs the bot token: token_env or token_file")
            default: break
            }
            if !preset.isSigned, secret != nil {
                throw WebhookSettingError("the \(preset.name) preset is not signed (its token authenticates); remove the secret")
            }
            if !preset.isPhone, token != nil {
                throw WebhookSettingError("token is for the ntfy, gotify and telegram presets; the \(preset.name) preset does not use it")
            }
            guard timeout > .zero else { throw WebhookSettingError("the webhook timeout must be more than zero") }
            self.endpoint = endpoint
            self.preset = preset
            self.secret = secret
            self.additionalSecrets = secret == nil ? [] : additionalSecrets
            self.timeout = timeout
            self.userAgent = userAgent
            self.source = source
            self.token = token
        }
    }

    /// The version in the default `User-Agent`.
    public static let version = ProductVersion.number

    public let name: String
    public let settings: Settings
    private let transport: any HTTPTransport
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - now: the clock for `webhook-timestamp` and `Retry-After` dates.
    ///   - transport: how the POST is sent; URLSession by default, an in-process receiver in tests.
    public init(name: String = "webhook", settings: Settings, now: @escaping @Sendable () -> Date = { Date() }, transport: any HTTPTransport = URLSessionTransport()) {
        self.name = name
        self.settings = settings
        self.now = now
        self.transport = transport
    }

    /// The exact body bytes for `alert`: compact JSON with sorted keys.
    public func body(for alert: Alert) -> Data {
        let context = WebhookPreset.Context(source: settings.source ?? ProcessFacts.hostName() ?? "tophhie-watch", receiver: name)
        return settings.preset.body(for: alert, context: context).canonicalData()
    }

    /// Where the POST goes: the configured URL; ntfy's server root (the topic is in the body);
    /// Telegram's `{url}/bot{token}/sendMessage`, which is never printed.
    public var target: URL {
        let url = settings.endpoint.url
        switch settings.preset {
        case .ntfy:
            return WebhookEndpoint.ntfyRoot(url)
        case .telegram:
            var text = url.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return URL(string: text + "/bot" + (settings.token?.value ?? "") + "/sendMessage") ?? url
        default:
            return url
        }
    }

    /// The request for one attempt at `timestamp` (Unix seconds).
    public func request(for alert: Alert, timestamp: Int64) -> URLRequest {
        let body = body(for: alert)
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(settings.userAgent, forHTTPHeaderField: "User-Agent")
        switch settings.preset {
        case .ntfy:
            if let token = settings.token { request.setValue("Bearer " + token.value, forHTTPHeaderField: "Authorization") }
            return request
        case .gotify:
            request.setValue(settings.token?.value, forHTTPHeaderField: "X-Gotify-Key")
            return request
        case .telegram:
            return request
        default:
            break
        }
        request.setValue(Self.webhookID(alert.id), forHTTPHeaderField: "webhook-id")
        request.setValue(String(timestamp), forHTTPHeaderField: "webhook-timestamp")
        if let secret = settings.secret {
            let signature = StandardWebhookSignature.sign(id: Self.webhookID(alert.id), timestamp: timestamp, body: Array(body), secrets: [secret] + settings.additionalSecrets)
            request.setValue(signature, forHTTPHeaderField: "webhook-signature")
        }
        return request
    }

    /// The alert id as a `webhook-id`: the specification forbids `.` in it (it separates the
    /// signed parts), and header values must stay on one line.
    public static func webhookID(_ alertID: String) -> String {
        String(alertID.unicodeScalars.map { scalar -> Character in
            scalar == "." || scalar.value < 0x21 || scalar.value > 0x7E ? "_" : Character(scalar)
        })
    }

    public func deliver(_ alert: Alert) async throws {
        let timestamp = Int64(now().timeIntervalSince1970.rounded(.down))
        let request = request(for: alert, timestamp: timestamp)
        let response: HTTPReply
        // Its own timeout, or what is left of the cycle's delivery budget when that is less.
        let deadline = DeliveryBudget.timeout(Self.seconds(settings.timeout))
        do {
            response = try await transport.send(request, deadline: deadline)
        } catch let failure as HTTPTransportError {
            throw NotifierError.transient("webhook \(settings.endpoint): \(Self.describe(failure, timeout: deadline))")
        }
        if let error = WebhookResponseClassifier.classify(status: response.status, retryAfter: response.header("retry-after") ?? telegramRetryAfter(response),
                                                          endpoint: settings.endpoint.description, now: now()) {
            throw error
        }
    }

    /// Telegram's flood control answers 429 with the wait in the body,
    /// `{"ok":false,"parameters":{"retry_after":N}}`, as seconds.
    func telegramRetryAfter(_ response: HTTPReply) -> String? {
        guard case .telegram = settings.preset, response.status == 429,
              let body = try? JSONValue.parse(response.body), case .int(let seconds)? = body.value(atPath: "parameters.retry_after"), seconds >= 0 else { return nil }
        return String(seconds)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// A transport failure in words, without the URL (a chat webhook's path is its credential).
    static func describe(_ failure: HTTPTransportError, timeout: Double) -> String {
        switch failure.kind {
        case .timedOut: return "no answer within \(HTTPTransportError.seconds(timeout))"
        case .cannotConnect: return "connection refused"
        case .hostNotFound: return "host not found"
        case .connectionLost: return "connection lost"
        case .tlsFailure: return "TLS handshake or certificate check failed"
        case .cancelled: return "cancelled"
        case .badResponse: return "malformed response"
        case .other: return "network error"
        }
    }
}
