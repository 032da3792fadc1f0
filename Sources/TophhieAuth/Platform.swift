// The one place this target imports Glibc: atomic, private file writes for the token cache.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The C library calls the token cache needs.
enum Platform {
    /// Writes `data` to `url` so that a reader sees the old file or the new one, never a part:
    /// a 0600 temporary beside it, fsync, rename over, fsync the folder.
    /// - Throws: `TophhieAuthError.tokenCache` with the failing step.
    static func writeAtomically(_ data: Data, to url: URL, mode: mode_t = 0o600) throws {
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("create \(temporary)") }
        var ok = true
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 { if errno == EINTR { continue }; ok = false; return }
                offset += written
            }
        }
        if !ok { let e = failure("write \(temporary)"); close(fd); unlink(temporary); throw e }
        fchmod(fd, mode)
        if fsync(fd) != 0 { let e = failure("fsync \(temporary)"); close(fd); unlink(temporary); throw e }
        close(fd)
        if rename(temporary, url.path) != 0 { let e = failure("rename onto \(url.path)"); unlink(temporary); throw e }
        syncDirectory(directory)
    }

    /// Flushes a folder's entries so a rename survives a power cut.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// Creates `url` (and parents) if needed and sets it to `mode`.
    static func ensurePrivateDirectory(_ url: URL, mode: mode_t = 0o700) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw TophhieAuthError.tokenCache("cannot create the state directory \(url.path): \(error.localizedDescription)")
        }
        if chmod(url.path, mode) != 0 { throw failure("chmod \(url.path)") }
    }

    /// The permission bits of a file, or nil when it does not exist.
    static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    private static func failure(_ step: String) -> TophhieAuthError {
        .tokenCache("\(step): \(String(cString: strerror(errno)))")
    }
}
