/// Delegated scopes compared the way the identity platform compares them: case-insensitively, with
/// the Graph resource prefix optional.
struct ScopeSet: Sendable, Equatable {
    /// Scopes every app may receive without consent to a resource.
    static let openIDScopes: Set<String> = ["offline_access", "openid", "profile", "email"]
    private static let graphPrefixes = ["https://graph.microsoft.com/", "00000003-0000-0000-c000-000000000000/"]

    /// Scope names in their canonical spelling, in first-seen order.
    private(set) var names: [String] = []

    init(_ names: some Sequence<String>) {
        for name in names { insert(name) }
    }

    /// Parses a space-separated `scope` parameter.
    init(parameter: String) {
        self.init(parameter.split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init))
    }

    /// The scope without a Graph resource prefix, e.g. `https://graph.microsoft.com/User.Read` → `User.Read`.
    static func bare(_ scope: String) -> String {
        for prefix in graphPrefixes where scope.lowercased().hasPrefix(prefix) {
            return String(scope.dropFirst(prefix.count))
        }
        return scope
    }

    static func key(_ scope: String) -> String {
        bare(scope).lowercased()
    }

    mutating func insert(_ scope: String) {
        let bare = Self.bare(scope)
        guard !bare.isEmpty, !contains(bare) else { return }
        names.append(Self.openIDScopes.contains(bare.lowercased()) ? bare.lowercased() : bare)
    }

    func contains(_ scope: String) -> Bool {
        let key = Self.key(scope)
        return names.contains { $0.lowercased() == key }
    }

    /// Whether any of `scopes` is present.
    func containsAny(_ scopes: [String]) -> Bool {
        scopes.contains(where: contains)
    }

    var isEmpty: Bool { names.isEmpty }

    /// The scopes as the `scope` field of a token response.
    var parameter: String { names.joined(separator: " ") }

    /// Scopes that name a resource permission, not one of the OpenID Connect scopes.
    var resourceScopes: [String] {
        names.filter { !Self.openIDScopes.contains($0.lowercased()) }
    }
}
