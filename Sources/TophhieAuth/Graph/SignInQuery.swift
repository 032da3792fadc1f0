import Foundation
import TophhieJSON

/// A sign-in log request limited to one user: the only kind this framework can build.
///
/// `GET /auditLogs/signIns` without `userId eq '{oid}'` is a tenant-wide query that ordinary users
/// are refused; with it, Entra's "users can read their own sign-ins" carve-out applies. The user id
/// is required by the initialiser, so an unfiltered request has no code path.
struct SignInQuery: Sendable, Equatable {
    let userID: String
    var notBefore: Date?
    var notAfter: Date?
    var top: Int
    /// Which version's log; v1.0 has the interactive stream only.
    var api: SignInLogAPI = .v1
    /// The non-interactive stream is asked for by name; beta's default is the interactive one.
    var stream: SignInStream = .interactive

    /// - Throws: `.configuration` when the id is not a directory object id (it goes into a filter
    ///   literal, so anything but a GUID's characters is refused).
    init(userID: String, notBefore: Date? = nil, notAfter: Date? = nil, top: Int = 1000, api: SignInLogAPI = .v1, stream: SignInStream = .interactive) throws {
        let allowed = Set("0123456789abcdefABCDEF-")
        guard !userID.isEmpty, userID.count <= 64, userID.allSatisfy({ allowed.contains($0) }) else {
            throw TophhieAuthError.configuration("the user's object id from /me is not a GUID; refusing to build a sign-in filter from it")
        }
        self.userID = userID
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.top = min(max(top, 1), 1000)
        self.api = api
        self.stream = api == .v1 ? .interactive : stream
    }

    /// `userId eq '…' and createdDateTime ge 2024-01-13T14:13:32Z` — dates unquoted, as Graph
    /// requires; beta's non-interactive stream adds `signInEventTypes/any(t: t eq 'nonInteractiveUser')`.
    var filter: String {
        var clauses = ["userId eq '\(userID)'"]
        if stream == .nonInteractive { clauses.append("signInEventTypes/any(t: t eq '\(stream.eventType)')") }
        if let notBefore { clauses.append("createdDateTime ge \(GraphTimestamp.filterText(notBefore))") }
        if let notAfter { clauses.append("createdDateTime le \(GraphTimestamp.filterText(notAfter))") }
        return clauses.joined(separator: " and ")
    }

    /// The first page's URL under `graphBaseURL` (its version swapped for `api`).
    func url(graphBaseURL: URL) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:")
        let encodedFilter = filter.addingPercentEncoding(withAllowedCharacters: allowed) ?? filter
        let base = Self.logURL(graphBaseURL: graphBaseURL, api: api).absoluteString
        return URL(string: "\(base)?$filter=\(encodedFilter)&$top=\(top)")!
    }

    /// `…/{version}/auditLogs/signIns`: the configured Graph root with its version (`v1.0` or
    /// `beta`) replaced by `api`; a root with neither is used as it is.
    static func logURL(graphBaseURL: URL, api: SignInLogAPI) -> URL {
        let root = ["v1.0", "beta"].contains(graphBaseURL.lastPathComponent) ? graphBaseURL.deletingLastPathComponent().appendingPathComponent(api.rawValue) : graphBaseURL
        return root.appendingPathComponent("auditLogs/signIns")
    }
}
