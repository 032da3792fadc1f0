#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the call's name and `errno`'s text.
public struct SystemCallError: Error, CustomStringConvertible, Sendable {
    let call: String
    let code: Int32

    public var description: String {
        "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }

    public static func last(_ call: String) -> SystemCallError {
        SystemCallError(call: call, code: errno)
    }
}

/// What waiting on a listening socket produced.
public enum AcceptOutcome: Sendable {
    case connection(Int32)
    case timedOut
    case closed
}

/// The BSD socket calls of a small loopback server (the simulator, test receivers), speaking in
/// file descriptors. Each call may block its thread: the server calls them from threads it owns.
public enum ServerSocket {
    /// Opens a TCP socket listening on 127.0.0.1 and returns it with the port actually bound.
    public static func listenOnLoopback(port: UInt16, backlog: Int32) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError.last("socket") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = SystemCallError.last("bind")
            close(fd)
            throw error
        }
        guard listen(fd, backlog) == 0 else {
            let error = SystemCallError.last("listen")
            close(fd)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = SystemCallError.last("getsockname")
            close(fd)
            throw error
        }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }

    /// Waits up to `timeoutMilliseconds` for a connection on a listening socket.
    public static func accept(on fd: Int32, timeoutMilliseconds: Int32) -> AcceptOutcome {
        var waiter = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&waiter, 1, timeoutMilliseconds)
        if ready == 0 { return .timedOut }
        if ready < 0 { return errno == EINTR ? .timedOut : .closed }
        if waiter.revents & Int16(POLLNVAL | POLLERR) != 0 { return .closed }
        let client = Glibc.accept(fd, nil, nil)
        if client < 0 {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EMFILE, ENFILE, ENOBUFS, ENOMEM, EPROTO:
                return .timedOut
            default:
                return .closed
            }
        }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return .connection(client)
    }

    /// Sets how long a blocking read may wait before giving up.
    public static func setReceiveTimeout(_ fd: Int32, seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads what is available into `buffer`; returns the count, 0 at end of stream, -1 on error or timeout.
    public static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Writes every byte, or reports that the peer went away.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a peer that hung up must give EPIPE here, not a SIGPIPE that kills the process.
            let sent = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Ends the writing half so the peer sees end of stream after the response.
    public static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Wakes any thread blocked on the socket; the owner still closes it.
    public static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Closes so the peer gets a reset rather than an orderly end of stream.
    public static func abort(_ fd: Int32) {
        var hard = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, socklen_t(MemoryLayout<linger>.size))
        _ = Glibc.close(fd)
    }
}

extension ServerSocket {
    /// Connects to 127.0.0.1:`port` as a client, for wire tests that send bytes no HTTP client would.
    /// - Returns: the connected descriptor, or nil when nothing accepted the connection.
    public static func connectLoopback(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            _ = Glibc.close(fd)
            return nil
        }
        return fd
    }
}
