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

    /// - Throws: `.configuration` when the id is not a directory object id (it goes into a filter
    ///   literal, so anything but a GUID's characters is refused).
    init(userID: String, notBefore: Date? = nil, notAfter: Date? = nil, top: Int = 1000) throws {
        let allowed = Set("0123456789abcdefABCDEF-")
        guard !userID.isEmpty, userID.count <= 64, userID.allSatisfy({ allowed.contains($0) }) else {
            throw TophhieAuthError.configuration("the user's object id from /me is not a GUID; refusing to build a sign-in filter from it")
        }
        self.userID = userID
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.top = min(max(top, 1), 1000)
    }

    /// `userId eq '…' and createdDateTime ge 2024-01-13T14:13:32Z` — dates unquoted, as Graph requires.
    var filter: String {
        var clauses = ["userId eq '\(userID)'"]
        if let notBefore { clauses.append("createdDateTime ge \(GraphTimestamp.filterText(notBefore))") }
        if let notAfter { clauses.append("createdDateTime le \(GraphTimestamp.filterText(notAfter))") }
        return clauses.joined(separator: " and ")
    }

    /// The first page's URL under `graphBaseURL`.
    func url(graphBaseURL: URL) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:")
        let encodedFilter = filter.addingPercentEncoding(withAllowedCharacters: allowed) ?? filter
        let base = graphBaseURL.appendingPathComponent("auditLogs/signIns").absoluteString
        return URL(string: "\(base)?$filter=\(encodedFilter)&$top=\(top)")!
    }
}
