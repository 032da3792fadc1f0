#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exclusive advisory locks (`flock`), held by an open descriptor.
public enum FileLock {
    /// Takes an exclusive, non-blocking lock on a directory itself. Unlike a lock file, nothing
    /// inside the directory can be deleted to let a second holder in.
    /// - Returns: the open descriptor holding the lock, or nil when another process holds it.
    /// - Throws: `FileError` when the directory cannot be opened or locked.
    public static func tryLockDirectory(_ path: String) throws -> Int32? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(operation: "open directory", path: path, code: errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            _ = close(fd)
            if code == EWOULDBLOCK { return nil }
            throw FileError(operation: "lock", path: path, code: code)
        }
        return fd
    }

    /// Releases a lock taken with `tryLockDirectory`.
    public static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        _ = close(fd)
    }
}
