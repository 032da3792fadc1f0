/// How a sign-in ended, as the report colours it.
public enum SignInOutcome: String, Sendable, CaseIterable {
    case success
    case failure
    /// Stopped for more proof (MFA, a device check): not a failure, not yet a success.
    case interrupted

    /// Entra's codes for a sign-in interrupted to ask for more (MFA required, a prompt
    /// pending, a device to register); every other non-zero code is a failure.
    static let interruptions: Set<Int64> = [50058, 50072, 50074, 50076, 50079, 50125, 50140, 50158, 81010, 81012]

    public init(errorCode: Int64) {
        if errorCode == 0 { self = .success } else if Self.interruptions.contains(errorCode) { self = .interrupted } else { self = .failure }
    }
}
