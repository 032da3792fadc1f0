import Foundation
import TophhieSystem

/// Where to sign in, which Graph to call, and where to keep the token cache.
public struct TophhieConfiguration: Sendable, Equatable {
    /// The tenant id or domain (`contoso.onmicrosoft.com`), or `organizations`.
    public var tenant: String
    /// The app registration's client id (public client flows enabled).
    public var clientID: String
    /// The full authority: `https://login.microsoftonline.com/{tenant}`, or for External ID
    /// `https://{sub}.ciamlogin.com/{tenant}`, or a national cloud's login host.
    public var authority: URL
    /// Graph's root including the version: `https://graph.microsoft.com/v1.0`.
    public var graphBaseURL: URL
    /// Which version the sign-in log is read from (the profile always uses `graphBaseURL`).
    public var signInAPI: SignInLogAPI = .v1
    /// The folder for the token cache (and, for the agent, its state). Created 0700.
    public var stateDirectory: URL
    /// Sign-in log retention of the tenant's licence: 7 days (Free) or 30 (P1/P2).
    public var retentionDays: Int
    /// Seconds an access token is treated as expired before it really is.
    public var tokenExpirySkew: Double
    /// Overall time one HTTP attempt may take, enforced by us (URLSession's own timeouts are
    /// unreliable on Linux).
    public var requestDeadline: Double
    /// Attempts per call for throttled, unavailable or failed requests.
    public var maxAttempts: Int
    /// The most sign-in pages one fetch follows (Graph serves at most 1,000 per page); past it the
    /// fetch fails rather than page forever.
    public var maxPages: Int
    public var userAgent: String

    public static let defaultAuthorityHost = URL(string: "https://login.microsoftonline.com")!
    public static let defaultGraphBaseURL = URL(string: "https://graph.microsoft.com/v1.0")!
    public static let version = ProductVersion.number

    /// A configuration for a workforce tenant or a national cloud.
    /// - Parameters:
    ///   - authorityHost: the login host; the tenant is appended as the authority's path.
    ///   - graphBaseURL: Graph's root with its version.
    public init(tenant: String, clientID: String, authorityHost: URL = defaultAuthorityHost, graphBaseURL: URL = defaultGraphBaseURL, stateDirectory: URL, retentionDays: Int = 30) {
        self.init(tenant: tenant, clientID: clientID, authority: authorityHost.appendingPathComponent(tenant), graphBaseURL: graphBaseURL, stateDirectory: stateDirectory, retentionDays: retentionDays)
    }

    /// A configuration with a full authority URL, as External ID (`https://{sub}.ciamlogin.com/{tenant}`) needs.
    public init(tenant: String, clientID: String, authority: URL, graphBaseURL: URL = defaultGraphBaseURL, stateDirectory: URL, retentionDays: Int = 30) {
        self.tenant = tenant
        self.clientID = clientID
        self.authority = authority
        self.graphBaseURL = graphBaseURL
        self.stateDirectory = stateDirectory
        self.retentionDays = retentionDays
        self.tokenExpirySkew = 300
        self.requestDeadline = 60
        self.maxAttempts = 4
        self.maxPages = 500
        self.userAgent = "tophhie-watch/\(Self.version) (Linux; Swift)"
    }

    /// The External ID authority for a tenant subdomain: `https://{subdomain}.ciamlogin.com/{tenant}`.
    public static func externalIDAuthority(subdomain: String, tenant: String) -> URL? {
        URL(string: "https://\(subdomain).ciamlogin.com/\(tenant)")
    }

    /// Checks what can be checked before any request.
    /// - Throws: `TophhieAuthError.configuration` naming the problem.
    public func validate() throws {
        if tenant.isEmpty { throw TophhieAuthError.configuration("the tenant is empty") }
        if clientID.isEmpty { throw TophhieAuthError.configuration("the client id is empty") }
        for (name, url) in [("authority", authority), ("Graph URL", graphBaseURL)] {
            guard let scheme = url.scheme?.lowercased(), url.host != nil else {
                throw TophhieAuthError.configuration("the \(name) '\(url.absoluteString)' is not an absolute URL")
            }
            if scheme == "http", !Self.isLoopback(url) {
                throw TophhieAuthError.configuration("the \(name) '\(url.absoluteString)' must use https (plain http is allowed only to loopback)")
            }
            if scheme != "http" && scheme != "https" {
                throw TophhieAuthError.configuration("the \(name) '\(url.absoluteString)' must be an https URL")
            }
        }
        if !(1...90).contains(retentionDays) {
            throw TophhieAuthError.configuration("retention must be between 1 and 90 days, not \(retentionDays)")
        }
    }

    /// Whether a URL points at this machine (the simulated tenant, a test receiver).
    public static func isLoopback(_ url: URL) -> Bool {
        url.host.map(isLoopbackHost) ?? false
    }

    /// Whether `host` names this machine: an IPv4 address in 127.0.0.0/8, `::1` or `localhost`.
    /// A name such as `127.evil.example` is not loopback: it resolves wherever its owner likes.
    public static func isLoopbackHost(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { part in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let number = Int(part) else { return false }
            return number <= 255
        }
    }

    var deviceCodeEndpoint: URL { authority.appendingPathComponent("oauth2/v2.0/devicecode") }
    var tokenEndpoint: URL { authority.appendingPathComponent("oauth2/v2.0/token") }
    var tokenCacheFile: URL { stateDirectory.appendingPathComponent("tokens.json") }
}
