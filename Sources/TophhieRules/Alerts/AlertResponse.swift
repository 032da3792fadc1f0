/// What a person does about an alert that means the account may be in someone else's hands (a
/// token used from a new place, a device code redeemed, a success after failures, a first factor
/// or a single factor from a new place, a risky sign-in): the steps, in order, that the alert
/// JSON carries as `response` and every text line ends with.
package enum AlertResponse {
    /// The rules whose alerts mean a possible takeover.
    public static let takeoverRules: Set<String> = [
        "token-from-new-place", "device-code-sign-in", "success-after-failures", "first-factor-new-place",
        "single-factor-from-new-place", "risky-sign-in", "agent-token-elsewhere", "agent-token-elsewhere/network",
    ]

    /// Revoke every session (the agent can), change the password, then tell Microsoft and
    /// review the security info (My Sign-Ins: "this wasn't me" and the security-info page).
    public static let steps = [
        "revoke every session of your account: tophhie-watch respond --revoke-sessions",
        "change your password",
        "say 'this wasn't me' for the sign-in and review your security info: https://mysignins.microsoft.com",
    ]

    /// The steps for `alert`, or nil when it does not call for them.
    public static func steps(for alert: Alert) -> [String]? {
        alert.kind == .detection && takeoverRules.contains(alert.rule.id) ? steps : nil
    }
}
