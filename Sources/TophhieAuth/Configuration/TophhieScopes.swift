import Foundation

/// The delegated permissions the framework asks for, and the sets `login --scopes` names.
public enum TophhieScopes {
    public static let userRead = "User.Read"
    public static let userReadWrite = "User.ReadWrite"
    public static let directoryAccessAsUser = "Directory.AccessAsUser.All"
    public static let auditLogRead = "AuditLog.Read.All"
    /// Asked for beside `AuditLog.Read.All`: Microsoft's sign-in list documents both, and without it
    /// some P1 tenants answer the licence check intermittently with a 403.
    public static let directoryRead = "Directory.Read.All"
    /// Always requested: without it the identity platform issues no refresh token.
    public static let offlineAccess = "offline_access"
    /// Revoking every session of the signed-in account (`POST /me/revokeSignInSessions`).
    public static let revokeSessions = "User.RevokeSessions.All"
    static let identityScopes: Set<String> = ["offline_access", "openid", "profile", "email"]

    /// Named sets for `login --scopes`: what each feature needs.
    public static let sets: [(name: String, scopes: [String], purpose: String)] = [
        ("profile", [userRead], "read your profile (User.Read)"),
        ("history", [auditLogRead, directoryRead], "read your sign-in history (AuditLog.Read.All and Directory.Read.All, admin consent)"),
        ("profile-edit", [userReadWrite], "edit your profile (User.ReadWrite)"),
        ("respond", [revokeSessions], "revoke every session of your account after an alert (User.RevokeSessions.All, admin consent)"),
        ("member-edit", [directoryAccessAsUser], "edit your profile on a member account (Directory.AccessAsUser.All, admin consent)"),
    ]

    /// What `login` asks for when no set is named: the profile and the sign-in history.
    public static let defaultSignIn = [userRead, auditLogRead, directoryRead]

    /// The scopes for named sets, or raw scope names given as they are.
    /// - Throws: `TophhieAuthError.configuration` for an unknown name that does not look like a scope.
    public static func resolve(_ names: [String]) throws -> [String] {
        var result: [String] = []
        for name in names {
            if let set = sets.first(where: { $0.name == name }) { result += set.scopes }
            else if name.contains(".") || identityScopes.contains(name) { result.append(name) }
            else {
                throw TophhieAuthError.configuration("unknown scope set '\(name)'; use \(sets.map(\.name).joined(separator: ", ")) or a scope name such as User.Read")
            }
        }
        return result
    }

    /// What `login` asks for: the defaults, what the cached session already holds, and what was
    /// named — so following a hint ("run login --scopes history") never drops a scope another
    /// command needs. Identity scopes are left to the sign-in (it always adds offline_access);
    /// duplicates (case-insensitive, as the identity platform compares them) are dropped.
    public static func forLogin(named: [String], alreadyGranted: [String]) -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        for scope in defaultSignIn + alreadyGranted + named where !identityScopes.contains(scope.lowercased()) {
            if seen.insert(scope.lowercased()).inserted { result.append(scope) }
        }
        return result
    }

    /// Scope names as the identity platform needs them for this Graph: bare names for the global
    /// service, prefixed with the Graph root for national clouds (tokens are not interchangeable).
    static func qualified(_ scopes: [String], graphBaseURL: URL) -> [String] {
        let host = graphBaseURL.host?.lowercased() ?? ""
        let nationalRoots = ["graph.microsoft.us", "dod-graph.microsoft.us", "microsoftgraph.chinacloudapi.cn"]
        guard nationalRoots.contains(host) else { return scopes }
        return scopes.map { identityScopes.contains($0) || $0.contains("://") ? $0 : "https://\(host)/\($0)" }
    }

    /// Higher-privileged scopes Graph accepts in place of a lower one, from the permission tables
    /// of the calls the framework makes (GET /me, GET /auditLogs/signIns).
    static let acceptedInstead: [String: [String]] = [
        "user.read": ["user.readwrite", "user.read.all", "user.readwrite.all", "directory.read.all", "directory.accessasuser.all"],
        "auditlog.read.all": ["directory.read.all"],
    ]

    /// Whether `granted` covers `needed`, comparing case-insensitively and ignoring a resource
    /// prefix; a scope Graph documents as a higher privilege for the same call covers it too.
    public static func covers(_ granted: [String], _ needed: String) -> Bool {
        let bare = { (s: String) -> String in (s.split(separator: "/").last.map(String.init) ?? s).lowercased() }
        let want = bare(needed)
        let accepted = Set([want] + (acceptedInstead[want] ?? []))
        return granted.contains { accepted.contains(bare($0)) }
    }
}
