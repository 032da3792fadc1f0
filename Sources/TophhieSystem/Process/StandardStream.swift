#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output and standard error with `write(2)`, so a full disk or a closed pipe
/// (`poll > /dev/full`, `poll | head`) is an error the caller can report, never a crash.
public enum StandardStream {
    /// Standard output's descriptor.
    public static let output: Int32 = STDOUT_FILENO
    /// Standard error's descriptor.
    public static let error: Int32 = STDERR_FILENO

    /// Writes all of `text` to `fd`.
    /// - Throws: `FileError` with the C library's reason (`EPIPE`, `ENOSPC`, `EBADF`).
    public static func write(_ text: String, to fd: Int32) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(operation: "write to", path: name(of: fd), code: errno)
            }
            offset += written
        }
    }

    /// Stops SIGPIPE from killing the process: a write to a closed pipe then fails with `EPIPE`,
    /// which the stdout notifier reports while the other notifiers carry on.
    public static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    static func name(of fd: Int32) -> String {
        switch fd {
        case STDOUT_FILENO: return "standard output"
        case STDERR_FILENO: return "standard error"
        default: return "descriptor \(fd)"
        }
    }
}
