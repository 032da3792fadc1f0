import Foundation

/// The device codes issued and how each one's polling goes. Pure state: the clock is passed in.
struct DeviceCodeFlow: Sendable {
    enum Phase: String, Sendable {
        case pending, approved, declined, expired, redeemed
    }

    struct Code: Sendable {
        var userCode: String
        var scopes: ScopeSet
        var issuedAt: Date
        var expiresIn: Int
        var phase: Phase = .pending
        var scriptPosition = 0
        /// The object id of the person who approved it, when one was named; nil leaves the choice
        /// to the tenant (the next person not signed in).
        var person: String?
    }

    /// What a token poll gets.
    enum PollOutcome: Equatable {
        case tokens(ScopeSet, person: String?)
        case failure(IdentityError)
    }

    let settings: DeviceCodeSettings
    private(set) var codes: [String: Code] = [:]

    init(settings: DeviceCodeSettings) {
        self.settings = settings
    }

    mutating func issue(scopes: ScopeSet, now: Date) -> (deviceCode: String, code: Code) {
        let deviceCode = OpaqueToken.make(prefix: "DAQABIQEAAAB", bytes: 48)
        var userCode = OpaqueToken.userCode()
        while codes.values.contains(where: { $0.userCode == userCode }) { userCode = OpaqueToken.userCode() }
        let code = Code(userCode: userCode, scopes: scopes, issuedAt: now, expiresIn: settings.expiresIn)
        codes[deviceCode] = code
        return (deviceCode, code)
    }

    /// Answers one poll of the token endpoint.
    mutating func poll(deviceCode: String, now: Date) -> PollOutcome {
        guard var code = codes[deviceCode] else { return .failure(.badVerificationCode) }
        defer { codes[deviceCode] = code }
        if code.phase == .redeemed { return .failure(.deviceCodeRedeemed) }
        if code.phase == .expired || now >= code.issuedAt.addingTimeInterval(Double(code.expiresIn)) {
            code.phase = .expired
            return .failure(.expiredDeviceCode)
        }
        if code.phase == .declined { return .failure(.declined) }
        if code.phase == .pending, code.scriptPosition < settings.script.count {
            let step = settings.script[code.scriptPosition]
            code.scriptPosition += 1
            switch step {
            case .authorizationPending: return .failure(.authorizationPending)
            case .slowDown: return .failure(.slowDown)
            case .approve: code.phase = .approved
            case .decline:
                code.phase = .declined
                return .failure(.declined)
            case .expire:
                code.phase = .expired
                return .failure(.expiredDeviceCode)
            }
        }
        if code.phase == .pending, let after = settings.autoApproveAfterSeconds,
           now >= code.issuedAt.addingTimeInterval(after) {
            code.phase = .approved
        }
        guard code.phase == .approved else { return .failure(.authorizationPending) }
        code.phase = .redeemed
        return .tokens(code.scopes, person: code.person)
    }

    /// Approves (as `person`, when named) or declines the pending code with this user code
    /// (case-insensitive, dashes ignored).
    mutating func decide(userCode: String, approve: Bool, person: String? = nil) -> Bool {
        let wanted = userCode.uppercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: " ", with: "")
        guard let key = codes.first(where: { $0.value.userCode == wanted && $0.value.phase == .pending })?.key else {
            return false
        }
        codes[key]!.phase = approve ? .approved : .declined
        if approve { codes[key]!.person = person }
        return true
    }

    /// User codes still waiting for a decision, oldest first.
    func pendingUserCodes(now: Date) -> [String] {
        codes.values
            .filter { $0.phase == .pending && now < $0.issuedAt.addingTimeInterval(Double($0.expiresIn)) }
            .sorted { $0.issuedAt < $1.issuedAt }
            .map(\.userCode)
    }
}
