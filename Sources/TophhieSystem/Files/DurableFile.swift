#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Files that survive a crash: appends that are fsynced (and cut back when they fail part-way),
/// replacements that a reader sees whole or not at all, private directories.
///
/// Each call blocks its thread on the disk: from async code, call it through `BlockingWork`.
public enum DurableFile {
    /// File-system faults injected for tests: every write under a directory fails with an
    /// `errno` (ENOSPC, EROFS, EACCES) as a full disk, a read-only mount or a changed permission
    /// would make it. Scoped by directory, so tests side by side do not meet each other's.
    public enum Faults {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var injected: [String: Int32] = [:]

        /// Makes every write under `directory` fail with `code` until `clear(under:)`.
        public static func inject(_ code: Int32, under directory: String) {
            lock.withLock { injected[directory.hasSuffix("/") ? String(directory.dropLast()) : directory] = code }
        }

        public static func clear(under directory: String) {
            lock.withLock { _ = injected.removeValue(forKey: directory.hasSuffix("/") ? String(directory.dropLast()) : directory) }
        }

        /// The fault injected for `path`, if any.
        static func fault(for path: String) -> Int32? {
            lock.withLock {
                guard !injected.isEmpty else { return nil }
                return injected.first { path == $0.key || path.hasPrefix($0.key + "/") }?.value
            }
        }

        static func check(_ operation: String, _ path: String) throws {
            if let code = fault(for: path) { throw FileError(operation: operation, path: path, code: code) }
        }
    }

    /// Appends `bytes` to `path` (created with `mode`), then fsyncs the file.
    ///
    /// A write that fails part-way is cut back off, so a long-running agent never appends its
    /// next batch onto a torn line (which a later open would drop, alert and all).
    public static func append(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
        try Faults.check("write", path)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(operation: "open", path: path, code: errno) }
        defer { _ = close(fd) }
        let sizeBefore = lseek(fd, 0, SEEK_END)
        do {
            try writeAll(fd, bytes, path: path)
            guard fsync(fd) == 0 else { throw FileError(operation: "fsync", path: path, code: errno) }
        } catch {
            if sizeBefore >= 0 { _ = ftruncate(fd, sizeBefore) }
            throw error
        }
    }

    /// Replaces `path` atomically: writes a private temporary file beside it
    /// (`.<name>.tmp-<pid>`), fsyncs it, renames it over `path`, and fsyncs the directory.
    /// A failure removes the temporary, so no copy of what it held is left behind.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o600) throws {
        try replace(path, mode: mode) { write in try write(bytes) }
    }

    /// Replaces `path` atomically like `replace(_:with:mode:)`, with the new content given in
    /// pieces: `produce` calls the function it is passed once per piece, so a file larger than
    /// memory can be rewritten.
    /// - Throws: `FileError`, or what `produce` throws (the temporary is then removed).
    public static func replace(_ path: String, mode: mode_t = 0o600, producing produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        let temporary = temporaryPath(for: path)
        try Faults.check("create", temporary)
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(operation: "create", path: temporary, code: errno) }
        do {
            try produce { bytes in try writeAll(fd, bytes, path: temporary) }
            _ = fchmod(fd, mode)
            guard fsync(fd) == 0 else { throw FileError(operation: "fsync", path: temporary, code: errno) }
            _ = close(fd)
        } catch {
            _ = close(fd)
            _ = unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let failure = FileError(operation: "rename over", path: path, code: errno)
            _ = unlink(temporary)
            throw failure
        }
        try fsyncDirectory(containing: path)
    }

    /// The temporary `replace` writes before renaming: hidden, beside the file, named by process.
    public static func temporaryPath(for path: String) -> String {
        let directory = parentDirectory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return (directory == "." ? "" : directory + "/") + "." + name + ".tmp-\(getpid())"
    }

    /// Fsyncs the directory holding `path`, so a new or renamed entry survives a crash.
    public static func fsyncDirectory(containing path: String) throws {
        try fsyncDirectory(parentDirectory(of: path))
    }

    /// Fsyncs a directory itself.
    public static func fsyncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(operation: "open directory", path: directory, code: errno) }
        defer { _ = close(fd) }
        guard fsync(fd) == 0 else { throw FileError(operation: "fsync directory", path: directory, code: errno) }
    }

    /// Creates `directory` (and parents) with `mode` when missing.
    public static func makeDirectory(_ directory: String, mode: mode_t = 0o700) throws {
        var info = stat()
        if stat(directory, &info) != 0 { try Faults.check("create directory", directory) }
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw FileError(operation: "use as a directory", path: directory, code: ENOTDIR) }
            return
        }
        let parent = parentDirectory(of: directory)
        if parent != directory, parent != "." { try makeDirectory(parent, mode: mode) }
        guard mkdir(directory, mode) == 0 || errno == EEXIST else {
            throw FileError(operation: "create directory", path: directory, code: errno)
        }
        try fsyncDirectory(containing: directory)
    }

    /// The permission bits of `path`, or nil when it does not exist.
    public static func permissions(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The directory part of `path`: `/a/b` for `/a/b/c`, `.` for a bare name.
    public static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(operation: "write", path: path, code: errno)
            }
            offset += written
        }
    }

    /// Removes the temporaries `replace` leaves when killed between write and rename
    /// (`.<name>.tmp-<pid>` beside `path`), which may hold secrets.
    /// - Parameter onlyOfDeadProcesses: keep those of live processes (a save under way elsewhere).
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeTemporaries(for path: String, onlyOfDeadProcesses: Bool) -> [String] {
        let directory = parentDirectory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let prefix = "." + name + ".tmp-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for entry in entries where entry.hasPrefix(prefix) {
            guard let pid = Int32(entry.dropFirst(prefix.count)) else { continue }
            if onlyOfDeadProcesses, pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }
            let full = (directory == "." ? "" : directory + "/") + entry
            if unlink(full) == 0 { removed.append(full) }
        }
        return removed
    }

    /// Removes every temporary `replace` left in `directory` (`.<name>.tmp-<pid>`) by a process
    /// that is no longer running: a state file, an engine file, a lock owner's file, an outbox.
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeDeadTemporaries(in directory: String) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for entry in entries where entry.hasPrefix(".") {
            guard let marker = entry.range(of: ".tmp-", options: .backwards), let pid = Int32(entry[marker.upperBound...]), pid > 0 else { continue }
            if pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }
            let full = directory + "/" + entry
            if unlink(full) == 0 { removed.append(full) }
        }
        return removed
    }

    /// Sets the permission bits of `path`.
    /// - Throws: `FileError` when the file cannot be changed.
    public static func setPermissions(_ path: String, _ mode: mode_t) throws {
        guard chmod(path, mode) == 0 else { throw FileError(operation: "chmod", path: path, code: errno) }
    }
}
