import TophhieJSON

/// The one account the simulated tenant signs in.
public struct SimulatedUser: Sendable, Equatable {
    /// Which Graph property set the user may edit about themselves.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A workforce member: `PATCH /me` of the ten profile fields also needs `Directory.AccessAsUser.All`.
        case member
        /// An External ID customer: `User.ReadWrite` suffices.
        case consumer
    }

    /// Properties Graph's `user` type has that the simulator serves; others in `$select` are refused.
    public static let knownProperties: Set<String> = [
        "id", "userPrincipalName", "displayName", "givenName", "surname", "jobTitle", "mail", "mobilePhone",
        "officeLocation", "preferredLanguage", "businessPhones", "streetAddress", "city", "state", "postalCode",
        "country", "usageLocation", "companyName", "department", "employeeId", "otherMails", "aboutMe",
        "accountEnabled", "userType", "createdDateTime", "signInSessionsValidFromDateTime",
    ]

    /// The properties a signed-in user may change with `PATCH /me` in the simulator.
    public static let writableProperties: [String] = [
        "displayName", "givenName", "surname", "jobTitle", "streetAddress", "city", "state", "postalCode",
        "country", "preferredLanguage",
    ]

    /// Graph's default `GET /me` property set, returned when there is no `$select`.
    public static let defaultProperties: [String] = [
        "businessPhones", "displayName", "givenName", "id", "jobTitle", "mail", "mobilePhone",
        "officeLocation", "preferredLanguage", "surname", "userPrincipalName",
    ]

    /// The user's object id, a GUID.
    public var id: String
    public var userPrincipalName: String
    public var kind: Kind
    /// Every other property, by Graph name; absent means null.
    public var profile: [String: JSONValue]

    /// Creates a user.
    public init(id: String, userPrincipalName: String, kind: Kind, profile: [String: JSONValue] = [:]) {
        self.id = id
        self.userPrincipalName = userPrincipalName
        self.kind = kind
        self.profile = profile
    }

    /// The full property map as `GET /me` sees it.
    var properties: [String: JSONValue] {
        var all = profile
        all["id"] = .string(id)
        all["userPrincipalName"] = .string(userPrincipalName)
        if all["businessPhones"] == nil { all["businessPhones"] = .array([]) }
        return all
    }

    /// The display name, for sign-in events and id tokens.
    public var displayName: String {
        profile["displayName"]?.stringValue ?? userPrincipalName
    }
}

extension SimulatedUser: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        try decoder.rejectUnknownKeys(allowed: Self.knownProperties.union(["kind"]), in: "user")
        id = try container.decode(String.self, forKey: AnyCodingKey("id"))
        userPrincipalName = try container.decode(String.self, forKey: AnyCodingKey("userPrincipalName"))
        kind = try container.decodeIfPresent(Kind.self, forKey: AnyCodingKey("kind")) ?? .member
        guard SimulatorScenario.isGUID(id) else {
            throw DecodingError.dataCorruptedError(forKey: AnyCodingKey("id"), in: container, debugDescription: "user id '\(id)' is not a GUID")
        }
        var profile: [String: JSONValue] = [:]
        for key in container.allKeys where !["id", "userPrincipalName", "kind"].contains(key.stringValue) {
            profile[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        self.profile = profile
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(id, forKey: AnyCodingKey("id"))
        try container.encode(userPrincipalName, forKey: AnyCodingKey("userPrincipalName"))
        try container.encode(kind, forKey: AnyCodingKey("kind"))
        for (key, value) in profile { try container.encode(value, forKey: AnyCodingKey(key)) }
    }
}
