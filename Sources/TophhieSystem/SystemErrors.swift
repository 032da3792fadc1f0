// The one target that imports the C library: every system call the product makes is wrapped in
// this folder, split by concern, so the rest of the code reads as Swift.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's text for an `errno` value.
public func systemErrorMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// A failed socket call: which call, on what, and the C library's reason.
public struct SocketError: Error, CustomStringConvertible, Sendable, Equatable {
    public var operation: String
    public var target: String
    public var code: Int32

    public init(operation: String, target: String, code: Int32) {
        self.operation = operation
        self.target = target
        self.code = code
    }

    public var description: String { "\(operation) \(target): \(systemErrorMessage(code))" }
    /// Nothing listens there: a refused connection or a missing socket file.
    public var isRefusedOrMissing: Bool { code == ECONNREFUSED || code == ENOENT }
    /// The datagram is larger than the socket takes: the same bytes will never be sent.
    public var isMessageTooLong: Bool { code == EMSGSIZE }
}

/// A failed file call, with the path and the C library's reason.
public struct FileError: Error, CustomStringConvertible, Sendable, Hashable {
    public var operation: String
    public var path: String
    public var code: Int32

    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String { "cannot \(operation) \(path): \(systemErrorMessage(code))" }
}

extension FileError {
    /// A fault of the storage itself (full, read-only, not permitted, gone), not of one file's
    /// content: every write to that directory will fail the same way until someone acts.
    public var isStorageFault: Bool {
        [ENOSPC, EDQUOT, EROFS, EACCES, EPERM, ENOENT, EIO].contains(code)
    }

    /// `ENOSPC`, `EROFS`, `EACCES`, `ENOENT`, for callers outside this layer (tests inject them).
    public static let noSpace = ENOSPC
    public static let readOnly = EROFS
    public static let accessDenied = EACCES
    public static let noEntry = ENOENT
}
