import Foundation
import TophhieAuth
import TophhieRules

/// The alert path of one of several accounts: every alert and notice leaves for the outbox
/// attributed to its account (`Alert.attributed(to:distinguishingID:)`), with the person's
/// user principal name as the token cache last read it, and the commands a notice suggests
/// given `--account`.
public struct AttributedDispatch: AlertDispatch {
    public let base: any AlertDispatch
    /// The account's name in the configuration.
    public let account: String
    let auth: TophhieAuth
    /// Whether this account tells the notices about the agent rather than the person (the
    /// host's clock, the rules): the first account does, unattributed, and the others keep
    /// quiet, so thirty accounts do not send thirty copies.
    public let tellsAgentNotices: Bool

    /// Notices every account of one agent would tell alike.
    static let agentNotices = Set([NoticeKind.clockSkew, .rulesWarnings].map { "tophhie.notice.\($0.rawValue)" })

    public init(base: any AlertDispatch, account: String, auth: TophhieAuth, tellsAgentNotices: Bool) {
        self.base = base
        self.account = account
        self.auth = auth
        self.tellsAgentNotices = tellsAgentNotices
    }

    /// `alerts`, each saying whose it is; a notice's commands name the account. The agent's
    /// own notices go out once, unattributed.
    func attributed(_ alerts: [Alert]) async -> [Alert] {
        // A cache that cannot be read only leaves the name without its address.
        let userPrincipalName = ((try? await auth.currentSession()) ?? nil)?.userPrincipalName
        let account = AlertAccount(name: account, userPrincipalName: userPrincipalName)
        return alerts.compactMap { alert in
            if alert.kind == .notice && Self.agentNotices.contains(alert.rule.id) { return tellsAgentNotices ? alert : nil }
            var alert = alert.attributed(to: account, distinguishingID: true)
            if alert.kind == .notice {
                alert.summary = WatchedAccounts.commands(in: alert.summary, account: account.name)
                alert.sentence = WatchedAccounts.commands(in: alert.sentence, account: account.name)
            }
            return alert
        }
    }

    @discardableResult
    public func append(_ alerts: [Alert], excluding: Set<String>) async throws -> Int {
        try await base.append(await attributed(alerts), excluding: excluding)
    }

    public func deliverPending(budget: TimeInterval?) async -> [DeliveryReport] {
        await base.deliverPending(budget: budget)
    }

    public var recoveryNotes: [String] { base.recoveryNotes }

    public func deliverDirectly(_ alerts: [Alert]) async -> [String] {
        await base.deliverDirectly(await attributed(alerts))
    }
}
