/// Whose budget a Graph request spends: Graph's reporting API counts requests per app (client
/// id) and tenant, and per app across tenants.
///
/// Both are compared lowercased: Entra treats `Contoso.onmicrosoft.com` and
/// `contoso.onmicrosoft.com` as one tenant. A tenant named once by its domain and once by its
/// GUID is two keys to the planner, so name each tenant one way in the configuration.
public struct GraphBudgetKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The app registration's client id, lowercased.
    public let clientID: String
    /// The tenant's domain or id as configured, lowercased.
    public let tenant: String

    public init(clientID: String, tenant: String) {
        self.clientID = clientID.lowercased()
        self.tenant = tenant.lowercased()
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.clientID, a.tenant) < (b.clientID, b.tenant)
    }

    /// `tenant (app client-id)`.
    public var description: String { "\(tenant) (app \(clientID))" }
}
