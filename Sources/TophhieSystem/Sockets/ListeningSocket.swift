#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bound sockets for the test receivers (syslog over UDP, TCP and a unix socket), so tests need
/// no C imports of their own.
public enum ListeningSocket {
    // Listeners: the test receivers use these, so tests need no C imports of their own.

    /// A UDP or TCP socket bound to `host` on `port` (0 picks a free one), listening if TCP.
    public static func bindListener(kind: SocketCalls.SocketKind, host: String = "127.0.0.1", port: UInt16 = 0) throws -> (SocketCalls.Socket, UInt16) {
        let target = "\(kind == .datagram ? "udp" : "tcp") \(host):\(port)"
        guard let (family, address) = try SocketCalls.resolve(host: host, port: port, kind: kind).first else {
            throw SocketError(operation: "resolve", target: target, code: EHOSTUNREACH)
        }
        let socket = try SocketCalls.makeSocket(family: family, kind: kind, target: target)
        var yes: Int32 = 1
        _ = setsockopt(socket.fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard SocketCalls.bind(socket, to: address) == 0 else { throw SocketError(operation: "bind", target: target, code: errno) }
        if kind == .stream, listen(socket.fd, 16) != 0 { throw SocketError(operation: "listen on", target: target, code: errno) }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.fd, $0, &length) }
        }
        let boundPort: UInt16 = withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            UInt16(raw[2]) << 8 | UInt16(raw[3])
        }
        return (socket, boundPort)
    }

    /// A unix datagram socket bound at `path` (any old file there is removed first).
    public static func bindUnixDatagram(path: String) throws -> SocketCalls.Socket {
        let address = try SocketCalls.unixAddress(path)
        unlink(path)
        let socket = try SocketCalls.makeSocket(family: AF_UNIX, kind: .datagram, target: "unix socket \(path)")
        guard SocketCalls.bind(socket, to: address) == 0 else { throw SocketError(operation: "bind", target: path, code: errno) }
        return socket
    }

    /// One datagram, or nil when none arrives within `timeout`.
    public static func receiveDatagram(_ socket: SocketCalls.Socket, timeout: Duration) throws -> [UInt8]? {
        guard SocketCalls.poll(socket.fd, events: Int16(POLLIN), timeout: timeout) != 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.recv(socket.fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw SocketError(operation: "receive on", target: "socket", code: errno) }
        return Array(buffer.prefix(count))
    }

    /// Accepts one connection and reads it to its end, or nil when none comes within `timeout`.
    public static func acceptAndReadAll(_ listener: SocketCalls.Socket, timeout: Duration) throws -> [UInt8]? {
        guard SocketCalls.poll(listener.fd, events: Int16(POLLIN), timeout: timeout) != 0 else { return nil }
        let fd = Glibc.accept(listener.fd, nil, nil)
        guard fd >= 0 else { throw SocketError(operation: "accept on", target: "socket", code: errno) }
        let connection = SocketCalls.Socket(fd: fd)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while SocketCalls.poll(connection.fd, events: Int16(POLLIN), timeout: timeout) != 0 {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            out.append(contentsOf: buffer.prefix(count))
        }
        return out
    }

}
