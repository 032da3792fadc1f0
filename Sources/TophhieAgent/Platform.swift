// The one place this target imports Glibc. Everything the runtime needs from the C library
// (sockets for syslog, file locks, fsync, signals) is reached through the wrappers below, so
// the rest of the target reads as Swift.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the C library calls the runtime makes.
enum Platform {
    /// The current `errno` as a readable message.
    static func errorMessage(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    static var lastError: Int32 { errno }
}
