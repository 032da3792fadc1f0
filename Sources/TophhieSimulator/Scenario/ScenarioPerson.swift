import Foundation

/// Someone the tenant signs in besides the scenario's `user`: their account, where they usually
/// sign in from, and the history generated for them when the tenant starts.
///
/// In a scenario file, under `people`:
/// `{"user": {"id": "…", "userPrincipalName": "sam@contoso.com"}, "home": "newYork",
///   "generate": [{"pattern": "normalHistory", "seed": 107, "days": 14}]}`
public struct ScenarioPerson: Sendable, Equatable {
    /// Their account, as `GET /me` shows it.
    public var user: SimulatedUser
    /// Where their generated sign-ins come from; the scenario's `user` signs in from London.
    public var home: SignInFactory.Place
    /// Their own generated sign-ins, relative to the tenant's start time.
    public var generate: [SignInGeneration]

    /// Creates a person.
    public init(user: SimulatedUser, home: SignInFactory.Place = .london, generate: [SignInGeneration] = []) {
        self.user = user
        self.home = home
        self.generate = generate
    }

    /// The name `SignInFactory.Place.named` knows the home by, for writing the person back out.
    var homeName: String? {
        SignInFactory.Place.named.first { $0.value == home }?.key
    }
}

extension ScenarioPerson: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case user, home, generate
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "person")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        user = try c.decode(SimulatedUser.self, forKey: .user)
        generate = try c.decodeIfPresent([SignInGeneration].self, forKey: .generate) ?? []
        let name = try c.decodeIfPresent(String.self, forKey: .home) ?? "london"
        guard let place = SignInFactory.Place.named[name] else {
            throw DecodingError.dataCorruptedError(forKey: .home, in: c, debugDescription: "unknown place '\(name)'; known: \(SignInFactory.Place.named.keys.sorted().joined(separator: ", "))")
        }
        home = place
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(user, forKey: .user)
        try c.encodeIfPresent(homeName, forKey: .home)
        try c.encode(generate, forKey: .generate)
    }
}
