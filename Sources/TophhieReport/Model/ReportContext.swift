import Foundation

/// What the page says besides the sign-ins: whose they are, when and in which zone it was
/// written, and, when the agent's state is at hand, what the agent itself knows (place rules
/// still learning, polls that came too late to read everything).
public struct ReportContext: Sendable {
    /// The account's display name, when known.
    public var accountName: String?
    /// The account's user principal name, when known.
    public var userPrincipalName: String?
    public var generatedAt: Date
    public var time: ReportTime
    /// The period ends now (read from Graph), so the verdict says "in the last 30 days".
    public var endsNow: Bool
    /// "place rules learning until …" as the agent's last poll said it.
    public var placeLearning: String?

    public init(accountName: String? = nil, userPrincipalName: String? = nil, generatedAt: Date, time: ReportTime = .utc, endsNow: Bool = false, placeLearning: String? = nil) {
        self.accountName = accountName
        self.userPrincipalName = userPrincipalName
        self.generatedAt = generatedAt
        self.time = time
        self.endsNow = endsNow
        self.placeLearning = placeLearning
    }

    /// `Jane Doe (jane@contoso.com)`, either alone, or nil when neither is known.
    var account: String? {
        let name = accountName.flatMap { $0.isEmpty ? nil : $0 }, upn = userPrincipalName.flatMap { $0.isEmpty ? nil : $0 }
        switch (name, upn) {
        case let (name?, upn?): return name == upn ? upn : "\(name) (\(upn))"
        case let (name?, nil): return name
        case let (nil, upn?): return upn
        case (nil, nil): return nil
        }
    }
}
