import TophhieRules
/// A reference to an object kept alive by someone else, reached without reference counting.
///
/// Reading a class out of an array retains and releases it, an atomic operation each: with the
/// matching loop reading its rules, searches, entries and tests that way for every sign-in,
/// these made a tenth of a replay's reading thread. The owner keeps the strong list beside a
/// list of these, in the same order, and reads through the second.
struct Unretained<Object: AnyObject>: @unchecked Sendable {
    private let reference: Unmanaged<Object>

    /// `object`, which must outlive this value (its owner holds it strongly).
    init(_ object: Object) { reference = .passUnretained(object) }

    /// Runs `body` with the object lent for the call.
    @inline(__always) func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }
}
