#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A private file with no name, for spilling what would not fit in memory: written at its end,
/// read back at any offset, gone when closed — or when the process dies, since it never had a
/// name (Linux `O_TMPFILE`; elsewhere it is unlinked as soon as it is made).
///
/// Each call blocks its thread on the disk: from async code, call it through `BlockingWork`.
/// Appends must come from one thread at a time; reads are positioned (`pread`) and may come
/// from any.
public final class ScratchFile: @unchecked Sendable {
    /// The directory it lives in (for messages).
    public let directory: String
    private let fd: Int32
    /// Bytes written so far: where the next append goes.
    public private(set) var size = 0

    /// Makes one in `directory` (default: `$TMPDIR`, else `/tmp`), mode 0600.
    /// - Throws: `FileError` (`create a scratch file in`) when it cannot.
    public init(directory: String? = nil) throws {
        let directory = directory ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        self.directory = directory
        #if os(Linux)
        var fd = open(directory, O_RDWR | ScratchFile.unnamed | O_CLOEXEC, 0o600)
        // A file system without unnamed files: a named one, unlinked at once.
        if fd < 0, errno == EOPNOTSUPP || errno == EISDIR { fd = ScratchFile.namedThenUnlinked(in: directory) }
        #else
        let fd = ScratchFile.namedThenUnlinked(in: directory)
        #endif
        guard fd >= 0 else { throw FileError(operation: "create a scratch file in", path: directory, code: errno) }
        self.fd = fd
    }

    deinit { _ = close(fd) }

    #if os(Linux)
    /// `O_TMPFILE`, which Glibc defines only for `_GNU_SOURCE` (its value on x86-64, arm64 and
    /// the other architectures that use the generic flags).
    private static let unnamed: Int32 = 0o20000000 | O_DIRECTORY
    #endif

    private static func namedThenUnlinked(in directory: String) -> Int32 {
        var template = Array((directory + "/.tophhie-scratch-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return fd }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fchmod(fd, 0o600)
        return fd
    }

    /// Writes `bytes` at the end.
    /// - Returns: the offset they were written at.
    /// - Throws: `FileError` (`write`), for instance when the disk is full; what was written of
    ///   them is not counted, and the next append writes over it.
    @discardableResult
    public func append(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        let start = size
        let wrote = try transfer(bytes.count, operation: "write") { done in
            pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(start + done))
        }
        // A write that moves nothing would never finish: the disk has no room.
        guard wrote == bytes.count else { throw FileError(operation: "write", path: "a scratch file in \(directory)", code: ENOSPC) }
        size = start + bytes.count
        return start
    }

    /// Fills `buffer` from `offset`.
    /// - Returns: how many bytes were read: fewer than asked only past the end.
    /// - Throws: `FileError` (`read`).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        try transfer(buffer.count, operation: "read") { done in
            pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
        }
    }

    /// Moves `count` bytes with `call` (given how many are done), resuming after short counts
    /// and interruptions, until they are all moved or a call moves none.
    private func transfer(_ count: Int, operation: String, _ call: (Int) -> Int) throws -> Int {
        var done = 0
        while done < count {
            let moved = call(done)
            if moved < 0 {
                if errno == EINTR { continue }
                throw FileError(operation: operation, path: "a scratch file in \(directory)", code: errno)
            }
            if moved == 0 { break }
            done += moved
        }
        return done
    }
}
