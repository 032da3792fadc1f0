/// The watched person an alert or notice is about, when one agent watches several.
///
/// `name` is the configuration's account name (lowercase `[a-z0-9][a-z0-9_-]{0,31}`, checked
/// where the configuration is loaded). `userPrincipalName` comes from Graph (`GET /me`), so
/// every text output escapes and defangs it like the other fields from sign-in data.
public struct AlertAccount: Sendable, Codable, Hashable {
    /// The account's name in the configuration.
    public var name: String
    /// The person's user principal name from Graph, when read.
    public var userPrincipalName: String?

    public init(name: String, userPrincipalName: String? = nil) {
        self.name = name
        self.userPrincipalName = userPrincipalName
    }
}
