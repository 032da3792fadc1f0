/// One scripted misbehaviour: for requests whose path starts with `pathPrefix`, skip `skip` of
/// them, then answer the next `count` with the fault instead of (or around) the real response.
public struct FaultRule: Sendable, Equatable, Codable {
    /// What goes wrong.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// 429 with `Retry-After: retryAfter` and the service's throttling body.
        case throttle
        /// `status` (500, 502, 503, 504…) with the service's error body, `Retry-After` when given.
        case status
        /// The real response, sent after `seconds`.
        case delay
        /// 200 with a body that is not JSON.
        case invalidJSON
        /// The real sign-ins page with the first event's `createdDateTime` replaced by the number 42.
        case malformedEvent
        /// The real sign-ins page with invalid UTF-8 in the first event's device name.
        case invalidUTF8InEvent
        /// The real sign-ins page with a raw control byte (U+0001) in the first event's device name.
        case controlByteInEvent
        /// The real sign-ins page with a lone surrogate escape (`\ud800`) in the first event's device name.
        case loneSurrogateInEvent
        /// A response whose body stops short of its `Content-Length`.
        case truncatedBody
        /// The connection is closed without a reply.
        case dropConnection
    }

    public var pathPrefix: String
    /// Only requests whose decoded query contains this text, when set (e.g. `nonInteractiveUser`
    /// to fault one sign-in stream of Graph beta).
    public var queryContains: String?
    /// Only this method, when set (e.g. `GET`).
    public var method: String?
    public var kind: Kind
    /// How many matching requests get the fault.
    public var count: Int
    /// How many matching requests pass untouched first.
    public var skip: Int
    /// For `status`: the status code.
    public var status: Int?
    /// The `Retry-After` value to send verbatim, e.g. `"1.5"`.
    public var retryAfter: String?
    /// For `delay`: seconds before the response.
    public var seconds: Double?

    /// Creates a rule.
    public init(pathPrefix: String, queryContains: String? = nil, method: String? = nil, kind: Kind, count: Int = 1, skip: Int = 0, status: Int? = nil, retryAfter: String? = nil, seconds: Double? = nil) {
        self.pathPrefix = pathPrefix
        self.queryContains = queryContains
        self.method = method
        self.kind = kind
        self.count = count
        self.skip = skip
        self.status = status
        self.retryAfter = retryAfter
        self.seconds = seconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pathPrefix, queryContains, method, kind, count, skip, status, retryAfter, seconds
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "fault")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pathPrefix = try container.decode(String.self, forKey: .pathPrefix)
        queryContains = try container.decodeIfPresent(String.self, forKey: .queryContains)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        kind = try container.decode(Kind.self, forKey: .kind)
        count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
        skip = try container.decodeIfPresent(Int.self, forKey: .skip) ?? 0
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        retryAfter = try container.decodeIfPresent(String.self, forKey: .retryAfter)
        seconds = try container.decodeIfPresent(Double.self, forKey: .seconds)
        if kind == .status, !(400...599).contains(status ?? 0) {
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "a 'status' fault needs a status between 400 and 599")
        }
        if kind == .delay, (seconds ?? -1) < 0 {
            throw DecodingError.dataCorruptedError(forKey: .seconds, in: container, debugDescription: "a 'delay' fault needs seconds >= 0")
        }
        if count < 0 || skip < 0 {
            throw DecodingError.dataCorruptedError(forKey: .count, in: container, debugDescription: "count and skip must not be negative")
        }
    }
}
