#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends one message over UDP, TCP or a local datagram socket: what the syslog notifier needs.
///
/// Each call blocks its thread (resolve, connect, poll): call it through `BlockingWork`.
public enum OutgoingSocket {
    /// Sends one UDP datagram to `host:port`.
    ///
    /// UDP has no acknowledgement, but a closed port on this host answers with ICMP at once: the
    /// socket is connected and checked for that reply for up to `refusalWait`, so "nothing is
    /// listening" is an error rather than a silent drop.
    public static func sendDatagram(_ bytes: [UInt8], host: String, port: UInt16, refusalWait: Duration = .milliseconds(20)) throws {
        let target = "udp \(host):\(port)"
        var lastError = SocketError(operation: "send to", target: target, code: EHOSTUNREACH)
        for (family, address) in try SocketCalls.resolve(host: host, port: port, kind: .datagram) {
            let socket = try SocketCalls.makeSocket(family: family, kind: .datagram, target: target)
            guard SocketCalls.connect(socket, to: address) == 0 else {
                lastError = SocketError(operation: "connect to", target: target, code: errno)
                continue
            }
            try SocketCalls.sendAll(socket, bytes, target: target)
            if SocketCalls.poll(socket.fd, events: Int16(POLLIN), timeout: refusalWait) & Int16(POLLERR) != 0 || SocketCalls.pendingError(socket) != 0 {
                let code = SocketCalls.pendingError(socket)
                throw SocketError(operation: "send to", target: target, code: code == 0 ? ECONNREFUSED : code)
            }
            return
        }
        throw lastError
    }

    /// Opens a TCP connection to `host:port` within `timeout` and writes `bytes` to it.
    public static func sendStream(_ bytes: [UInt8], host: String, port: UInt16, timeout: Duration) throws {
        let target = "tcp \(host):\(port)"
        var lastError = SocketError(operation: "connect to", target: target, code: EHOSTUNREACH)
        for (family, address) in try SocketCalls.resolve(host: host, port: port, kind: .stream) {
            let socket = try SocketCalls.makeSocket(family: family, kind: .stream, target: target)
            let flags = fcntl(socket.fd, F_GETFL)
            _ = fcntl(socket.fd, F_SETFL, flags | O_NONBLOCK)
            if SocketCalls.connect(socket, to: address) != 0 {
                guard errno == EINPROGRESS else {
                    lastError = SocketError(operation: "connect to", target: target, code: errno)
                    continue
                }
                guard SocketCalls.poll(socket.fd, events: Int16(POLLOUT), timeout: timeout) != 0 else {
                    lastError = SocketError(operation: "connect to", target: target, code: ETIMEDOUT)
                    continue
                }
                let code = SocketCalls.pendingError(socket)
                guard code == 0 else {
                    lastError = SocketError(operation: "connect to", target: target, code: code)
                    continue
                }
            }
            _ = fcntl(socket.fd, F_SETFL, flags)
            var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
            _ = setsockopt(socket.fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            try SocketCalls.sendAll(socket, bytes, target: target)
            _ = shutdown(socket.fd, Int32(SHUT_WR))
            return
        }
        throw lastError
    }

    /// Whether a local datagram socket such as `/dev/log` has a listener: connects without
    /// sending (the kernel says at once when the path is missing or nothing is bound to it).
    /// - Throws: `SocketError` naming the path and the reason.
    public static func checkUnixDatagram(path: String) throws {
        let target = "unix socket \(path)"
        let address = try SocketCalls.unixAddress(path)
        let socket = try SocketCalls.makeSocket(family: AF_UNIX, kind: .datagram, target: target)
        let connected = address.withUnsafeBytes { addr in
            Glibc.connect(socket.fd, addr.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
        guard connected == 0 else { throw SocketError(operation: "connect to", target: target, code: errno) }
    }

    /// Sends one datagram to a local unix datagram socket such as `/dev/log`.
    public static func sendUnixDatagram(_ bytes: [UInt8], path: String) throws {
        let target = "unix socket \(path)"
        let address = try SocketCalls.unixAddress(path)
        let socket = try SocketCalls.makeSocket(family: AF_UNIX, kind: .datagram, target: target)
        let sent = bytes.withUnsafeBytes { raw in
            address.withUnsafeBytes { addr in
                Glibc.sendto(socket.fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL),
                             addr.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
        }
        guard sent == bytes.count else {
            throw SocketError(operation: "send to", target: target, code: sent < 0 ? errno : EMSGSIZE)
        }
    }

}
