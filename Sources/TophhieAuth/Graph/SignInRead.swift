import Foundation

/// One stretch of one stream's sign-in log to read.
public struct SignInRead: Sendable, Equatable {
    public var stream: SignInStream
    /// `createdDateTime ge`; clamped to retention and Graph's 90-day limit when sent.
    public var notBefore: Date
    /// `createdDateTime le`, or nil for "up to now".
    public var notAfter: Date?
    /// The most pages to read (newest first); nil reads to the end. A slice of the re-read window
    /// reads one page and goes on from its oldest sign-in the next time.
    public var pageLimit: Int?

    public init(stream: SignInStream, notBefore: Date, notAfter: Date? = nil, pageLimit: Int? = nil) {
        self.stream = stream
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.pageLimit = pageLimit
    }
}

/// How one `SignInRead` went.
public struct SignInReadResult: Sendable, Equatable {
    public var read: SignInRead
    public var pages: Int
    /// The oldest `createdDateTime` read, unreadable sign-ins aside.
    public var oldest: Date?
    /// Whether the read reached `notBefore`: false when `pageLimit` stopped it first.
    public var complete: Bool

    public init(read: SignInRead, pages: Int, oldest: Date?, complete: Bool) {
        self.read = read
        self.pages = pages
        self.oldest = oldest
        self.complete = complete
    }
}

/// Graph refused the beta sign-in log or its non-interactive filter, and the fetch read v1.0's
/// interactive sign-ins instead.
public struct SignInFallback: Sendable, Equatable, Codable {
    public var status: Int
    public var graphCode: String?

    public init(status: Int, graphCode: String?) {
        self.status = status
        self.graphCode = graphCode
    }

    /// Why, in Graph's terms: "HTTP 403 Authorization_RequestDenied".
    public var reason: String { "HTTP \(status)\(graphCode.map { " \($0)" } ?? "")" }
}
