#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket calls shared by the senders and listeners, speaking in file descriptors.
public enum SocketCalls {
    /// An open socket, closed when the last reference goes.
    public final class Socket: @unchecked Sendable {
        // The descriptor is written once in init and only read after; close happens in deinit.
        public let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { _ = Glibc.close(fd) }
    }

    public enum SocketKind: Sendable {
        case datagram, stream
        var rawType: Int32 {
            switch self {
            case .datagram: return Int32(SOCK_DGRAM.rawValue)
            case .stream: return Int32(SOCK_STREAM.rawValue)
            }
        }
    }

    /// Addresses for `host:port`, numeric or by name, in resolver order.
    static func resolve(host: String, port: UInt16, kind: SocketKind) throws -> [(family: Int32, address: [UInt8])] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = kind.rawType
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SocketError(operation: "resolve", target: host, code: status == EAI_SYSTEM ? errno : EHOSTUNREACH)
        }
        defer { freeaddrinfo(list) }
        var out: [(Int32, [UInt8])] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            let bytes = UnsafeRawBufferPointer(start: entry.pointee.ai_addr, count: Int(entry.pointee.ai_addrlen))
            out.append((entry.pointee.ai_family, Array(bytes)))
            cursor = entry.pointee.ai_next
        }
        return out
    }

    static func unixAddress(_ path: String) throws -> [UInt8] {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else {
            throw SocketError(operation: "use unix socket", target: path, code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + pathBytes.count + 1
        return Array(withUnsafeBytes(of: &address) { Array($0) }.prefix(length))
    }

    static func makeSocket(family: Int32, kind: SocketKind, target: String) throws -> Socket {
        let fd = Glibc.socket(family, kind.rawType | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "open socket for", target: target, code: errno) }
        return Socket(fd: fd)
    }

    static func connect(_ socket: Socket, to address: [UInt8]) -> Int32 {
        address.withUnsafeBytes { raw in
            Glibc.connect(socket.fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
    }

    static func bind(_ socket: Socket, to address: [UInt8]) -> Int32 {
        address.withUnsafeBytes { raw in
            Glibc.bind(socket.fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
    }

    /// Waits up to `timeout` for `events` on `fd`. Returns the revents, 0 on timeout.
    static func poll(_ fd: Int32, events: Int16, timeout: Duration) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let millis = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        while true {
            let ready = Glibc.poll(&entry, 1, millis)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0 ? entry.revents : 0
        }
    }

    static func pendingError(_ socket: Socket) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &code, &length)
        return code
    }

    static func sendAll(_ socket: Socket, _ bytes: [UInt8], target: String) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { raw in
                Glibc.send(socket.fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "send to", target: target, code: errno)
            }
            offset += sent
        }
    }

}
