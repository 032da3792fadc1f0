import Foundation
import LoopbackHTTP
import TophhieJSON

extension SimulatedTenant {
    /// How many paging cursors are kept before the oldest is forgotten.
    static let cursorLimit = 256

    /// `GET /v1.0/auditLogs/signIns` and `GET /beta/auditLogs/signIns` with Graph's gates, in
    /// Graph's order: token, permission, licence, throttling, filter syntax, role (self-filter),
    /// `$top`; then retention, latency, filter, newest first, paging. v1.0 knows no
    /// `signInEventTypes` and serves interactive sign-ins without beta's properties.
    func listSignIns(_ request: HTTPRequest, trace: RequestTrace, eventFault: FaultRule.Kind?, beta: Bool = false) -> HTTPResponse {
        let clock = now()
        let version = beta ? "beta" : "v1.0"
        func fail(_ error: GraphError) -> HTTPResponse { error.response(now: clock, trace: trace) }
        let scopes: ScopeSet
        let person: Int
        switch authorize(request, trace: trace) {
        case .denied(let response): return response
        case .granted(let granted, let index): (scopes, person) = (granted, index)
        }
        guard scopes.containsAny(["AuditLog.Read.All", "Directory.Read.All"]) else { return fail(.insufficientPrivileges) }
        if beta, let status = betaRefusal {
            return fail(status == 400 ? GraphError.badRequest("Resource not found for the segment 'beta'.") : .insufficientPrivileges)
        }
        guard scenario.premium else { return fail(.nonPremiumTenant) }
        if scenario.licenceRefusalEveryWithoutDirectoryRead > 0 && !scopes.containsAny(["Directory.Read.All"]) {
            requestsWithoutDirectoryRead += 1
            if requestsWithoutDirectoryRead % scenario.licenceRefusalEveryWithoutDirectoryRead == 0 { return fail(.nonPremiumTenant) }
        }
        if var window = throttle {
            let wait = window.admit(at: clock)
            throttle = window
            if let wait {
                graphLimitRefusals += 1
                return fail(.throttled(retryAfter: Self.formatRetryAfter(wait)))
            }
        }

        let filterText = request.query["$filter"] ?? ""
        var filter = SignInFilter()
        if !filterText.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                filter = try SignInFilter.parse(filterText)
            } catch {
                return fail(.invalidFilter)
            }
            if !filter.eventTypes.isEmpty && (!beta || nonInteractiveFilterRefusal) { return fail(.invalidFilter) }
        }
        // A person without a reporting role reads only the sign-ins "in which their user is the
        // actor" (shared/reference/graph-api.md §1.6); a filter on anyone else's userId, or on no
        // userId, gets what Graph gives a role-less user: 403 Authentication_RequestFromUnsupportedUserRole,
        // "User is not in the allowed roles" (§1.6, microsoftgraph/microsoft-graph-docs#7647).
        if !scenario.hasReportingRole && !filter.isSelfFilter(for: people[person].id) {
            return fail(.unsupportedUserRole)
        }
        if let notBefore = filter.notBefore, notBefore < clock.addingTimeInterval(-90 * 86_400) {
            return fail(.invalidFilter)
        }
        var pageSize = 1000
        if let top = request.query["$top"] {
            guard let value = Int(top), (1...1000).contains(value) else {
                return fail(GraphError(status: 400, code: "BadRequest", message: "Invalid page size specified: '\(top)'. Must be between 1 and 1000 inclusive."))
            }
            pageSize = value
        }

        var cursor: SignInCursor
        var cursorKey: String
        if let token = request.query["$skiptoken"] {
            guard let stored = cursors[token], stored.filterText == filterText else {
                return fail(GraphError(status: 400, code: "BadRequest", message: "Invalid $skiptoken."))
            }
            cursor = stored
            cursorKey = token
        } else {
            let retentionStart = clock.addingTimeInterval(-Double(scenario.retentionDays) * 86_400)
            let items = signIns
                .filter { $0.visibleAt <= clock && $0.createdAt >= retentionStart }
                .filter { filter.matches(userID: $0.event["userId"]?.stringValue, createdAt: $0.createdAt, eventTypes: $0.eventTypes) }
                .sorted { ($0.createdAt, $0.sequence) > ($1.createdAt, $1.sequence) }
            cursor = SignInCursor(filterText: filterText, pageSize: pageSize, items: items, offset: 0)
            cursorKey = ""
        }
        let end = min(cursor.items.count, cursor.offset + pageSize)
        let page = Array(cursor.items[cursor.offset..<end])
        if !cursorKey.isEmpty {
            // A cursor is good for one page, like Graph's, so replaying an old nextLink is an error.
            cursors.removeValue(forKey: cursorKey)
            cursorOrder.removeAll { $0 == cursorKey }
        }
        let damageMarker = "TOPHHIE-SIMULATOR-DAMAGE"
        var elements = page.map { beta ? $0.bytes : $0.v1Bytes }
        if let eventFault, case .object(var first)? = page.first?.event {
            switch eventFault {
            case .malformedEvent:
                first["createdDateTime"] = .int(42)
            case .invalidUTF8InEvent, .controlByteInEvent, .loneSurrogateInEvent:
                // A device name is attacker-chosen text; the bad bytes go where an attacker can put them.
                var device = first["deviceDetail"].flatMap { value -> [String: JSONValue]? in if case .object(let members) = value { return members } else { return nil } } ?? [:]
                device["displayName"] = .string(damageMarker)
                first["deviceDetail"] = .object(device)
            default:
                break
            }
            elements[0] = JSONValue.object(first).canonicalBytes()
        }
        var nextLink: String?
        if end < cursor.items.count {
            cursor.offset = end
            cursor.pageSize = pageSize
            let token = OpaqueToken.make(prefix: "", bytes: 18)
            cursors[token] = cursor
            cursorOrder.append(token)
            if cursorOrder.count > Self.cursorLimit { cursors.removeValue(forKey: cursorOrder.removeFirst()) }
            var link = "\(host)/\(version)/auditLogs/signIns?$top=\(pageSize)"
            if !filterText.isEmpty { link += "&$filter=\(Self.queryEscape(filterText))" }
            link += "&$skiptoken=\(token)"
            nextLink = link
        }
        // The page as the canonical writer would give it, members in byte order, from each
        // event's bytes written once.
        var bytes = Array(#"{"@odata.context":"#.utf8) + JSONValue.string("\(host)/\(version)/$metadata#auditLogs/signIns").canonicalBytes()
        if let nextLink { bytes += Array(#","@odata.nextLink":"#.utf8) + JSONValue.string(nextLink).canonicalBytes() }
        bytes += Array(#","value":["#.utf8)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += element
        }
        bytes += Array("]}".utf8)
        var data = Data(bytes)
        let damage: [UInt8]? = switch eventFault {
        case .invalidUTF8InEvent: [0x50, 0xC3, 0x28, 0xFF]
        case .controlByteInEvent: [0x50, 0x01, 0x43]
        case .loneSurrogateInEvent: Array(#"PC\ud800"#.utf8)
        default: nil
        }
        if let damage, let range = data.range(of: Data(damageMarker.utf8)) { data.replaceSubrange(range, with: damage) }
        return .json(200, data: data, headers: trace.headers)
    }

    /// Seconds as Graph writes them in `Retry-After`: whole when whole, else up to three decimals.
    static func formatRetryAfter(_ seconds: Double) -> String {
        let rounded = (seconds * 1000).rounded(.up) / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.3f", rounded).replacingOccurrences(of: #"0+$"#, with: "", options: .regularExpression)
    }

    /// Percent-encodes a query value the way Graph's nextLinks do (spaces as %20, quotes kept).
    static func queryEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~'():,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
