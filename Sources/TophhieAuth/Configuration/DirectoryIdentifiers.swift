import Foundation

/// What a tenant and a client id may be, checked when the configuration is read: a typo or a
/// path (`../../evil`) is told at once, with what was expected, not later as a sign-in failure.
public enum DirectoryIdentifiers {
    /// The names the identity platform takes in place of a tenant.
    public static let wellKnownTenants: Set<String> = ["common", "organizations", "consumers"]

    /// Whether `text` is a GUID written 8-4-4-4-12 in hexadecimal digits.
    public static func isGUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    /// Whether `text` is a DNS name of two labels or more (`contoso.onmicrosoft.com`): letters,
    /// digits and inner hyphens, 63 characters a label, 253 in all, a top-level label not all digits.
    public static func isDomainName(_ text: String) -> Bool {
        guard text.count <= 253 else { return false }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let last = labels.last, !last.allSatisfy(\.isNumber) else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
        }
    }

    /// Why `tenant` cannot be one, or nil when it can.
    public static func tenantProblem(_ tenant: String) -> String? {
        if isGUID(tenant) || isDomainName(tenant) || wellKnownTenants.contains(tenant) { return nil }
        return "the tenant '\(tenant)' is neither a tenant id (a GUID such as 72f988bf-86f1-41af-91ab-2d7cd011db47) nor a domain name (contoso.onmicrosoft.com)"
    }

    /// Why `clientID` cannot be one, or nil when it can.
    public static func clientProblem(_ clientID: String) -> String? {
        if isGUID(clientID) { return nil }
        return "the client id '\(clientID)' is not an application (client) id, a GUID such as 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c: copy it from the app registration's Overview page"
    }
}
