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

// MARK: sockets

extension Platform {
    /// A failed socket call: which call, on what, and the C library's reason.
    struct SocketError: Error, CustomStringConvertible {
        var operation: String
        var target: String
        var code: Int32

        var description: String { "\(operation) \(target): \(Platform.errorMessage(code))" }
        var isRefusedOrMissing: Bool { code == ECONNREFUSED || code == ENOENT }
    }

    /// An open socket, closed when the last reference goes.
    final class Socket: @unchecked Sendable {
        // The descriptor is written once in init and only read after; close happens in deinit.
        let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { _ = Glibc.close(fd) }
    }

    enum SocketKind {
        case datagram, stream
        var rawType: Int32 {
            switch self {
            case .datagram: return Int32(SOCK_DGRAM.rawValue)
            case .stream: return Int32(SOCK_STREAM.rawValue)
            }
        }
    }

    /// Addresses for `host:port`, numeric or by name, in resolver order.
    private static func resolve(host: String, port: UInt16, kind: SocketKind) throws -> [(family: Int32, address: [UInt8])] {
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

    private static func unixAddress(_ path: String) throws -> [UInt8] {
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

    private static func makeSocket(family: Int32, kind: SocketKind, target: String) throws -> Socket {
        let fd = Glibc.socket(family, kind.rawType | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "open socket for", target: target, code: errno) }
        return Socket(fd: fd)
    }

    private static func connect(_ socket: Socket, to address: [UInt8]) -> Int32 {
        address.withUnsafeBytes { raw in
            Glibc.connect(socket.fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
    }

    private static func bind(_ socket: Socket, to address: [UInt8]) -> Int32 {
        address.withUnsafeBytes { raw in
            Glibc.bind(socket.fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
    }

    /// Waits up to `timeout` for `events` on `fd`. Returns the revents, 0 on timeout.
    private static func poll(_ fd: Int32, events: Int16, timeout: Duration) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let millis = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        while true {
            let ready = Glibc.poll(&entry, 1, millis)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0 ? entry.revents : 0
        }
    }

    private static func pendingError(_ socket: Socket) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &code, &length)
        return code
    }

    private static func sendAll(_ socket: Socket, _ bytes: [UInt8], target: String) throws {
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

    /// Sends one UDP datagram to `host:port`.
    ///
    /// UDP has no acknowledgement, but a closed port on this host answers with ICMP at once: the
    /// socket is connected and checked for that reply for up to `refusalWait`, so "nothing is
    /// listening" is an error rather than a silent drop.
    static func sendDatagram(_ bytes: [UInt8], host: String, port: UInt16, refusalWait: Duration = .milliseconds(20)) throws {
        let target = "udp \(host):\(port)"
        var lastError = SocketError(operation: "send to", target: target, code: EHOSTUNREACH)
        for (family, address) in try resolve(host: host, port: port, kind: .datagram) {
            let socket = try makeSocket(family: family, kind: .datagram, target: target)
            guard connect(socket, to: address) == 0 else {
                lastError = SocketError(operation: "connect to", target: target, code: errno)
                continue
            }
            try sendAll(socket, bytes, target: target)
            if poll(socket.fd, events: Int16(POLLIN), timeout: refusalWait) & Int16(POLLERR) != 0 || pendingError(socket) != 0 {
                let code = pendingError(socket)
                throw SocketError(operation: "send to", target: target, code: code == 0 ? ECONNREFUSED : code)
            }
            return
        }
        throw lastError
    }

    /// Opens a TCP connection to `host:port` within `timeout` and writes `bytes` to it.
    static func sendStream(_ bytes: [UInt8], host: String, port: UInt16, timeout: Duration) throws {
        let target = "tcp \(host):\(port)"
        var lastError = SocketError(operation: "connect to", target: target, code: EHOSTUNREACH)
        for (family, address) in try resolve(host: host, port: port, kind: .stream) {
            let socket = try makeSocket(family: family, kind: .stream, target: target)
            let flags = fcntl(socket.fd, F_GETFL)
            _ = fcntl(socket.fd, F_SETFL, flags | O_NONBLOCK)
            if connect(socket, to: address) != 0 {
                guard errno == EINPROGRESS else {
                    lastError = SocketError(operation: "connect to", target: target, code: errno)
                    continue
                }
                guard poll(socket.fd, events: Int16(POLLOUT), timeout: timeout) != 0 else {
                    lastError = SocketError(operation: "connect to", target: target, code: ETIMEDOUT)
                    continue
                }
                let code = pendingError(socket)
                guard code == 0 else {
                    lastError = SocketError(operation: "connect to", target: target, code: code)
                    continue
                }
            }
            _ = fcntl(socket.fd, F_SETFL, flags)
            var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
            _ = setsockopt(socket.fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            try sendAll(socket, bytes, target: target)
            _ = shutdown(socket.fd, Int32(SHUT_WR))
            return
        }
        throw lastError
    }

    /// Sends one datagram to a local unix datagram socket such as `/dev/log`.
    static func sendUnixDatagram(_ bytes: [UInt8], path: String) throws {
        let target = "unix socket \(path)"
        let address = try unixAddress(path)
        let socket = try makeSocket(family: AF_UNIX, kind: .datagram, target: target)
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

    // Listeners: the test receivers use these, so tests need no C imports of their own.

    /// A UDP or TCP socket bound to `host` on `port` (0 picks a free one), listening if TCP.
    static func bindListener(kind: SocketKind, host: String = "127.0.0.1", port: UInt16 = 0) throws -> (Socket, UInt16) {
        let target = "\(kind == .datagram ? "udp" : "tcp") \(host):\(port)"
        guard let (family, address) = try resolve(host: host, port: port, kind: kind).first else {
            throw SocketError(operation: "resolve", target: target, code: EHOSTUNREACH)
        }
        let socket = try makeSocket(family: family, kind: kind, target: target)
        var yes: Int32 = 1
        _ = setsockopt(socket.fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(socket, to: address) == 0 else { throw SocketError(operation: "bind", target: target, code: errno) }
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
    static func bindUnixDatagram(path: String) throws -> Socket {
        let address = try unixAddress(path)
        unlink(path)
        let socket = try makeSocket(family: AF_UNIX, kind: .datagram, target: "unix socket \(path)")
        guard bind(socket, to: address) == 0 else { throw SocketError(operation: "bind", target: path, code: errno) }
        return socket
    }

    /// One datagram, or nil when none arrives within `timeout`.
    static func receiveDatagram(_ socket: Socket, timeout: Duration) throws -> [UInt8]? {
        guard poll(socket.fd, events: Int16(POLLIN), timeout: timeout) != 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.recv(socket.fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw SocketError(operation: "receive on", target: "socket", code: errno) }
        return Array(buffer.prefix(count))
    }

    /// Accepts one connection and reads it to its end, or nil when none comes within `timeout`.
    static func acceptAndReadAll(_ listener: Socket, timeout: Duration) throws -> [UInt8]? {
        guard poll(listener.fd, events: Int16(POLLIN), timeout: timeout) != 0 else { return nil }
        let fd = Glibc.accept(listener.fd, nil, nil)
        guard fd >= 0 else { throw SocketError(operation: "accept on", target: "socket", code: errno) }
        let connection = Socket(fd: fd)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while poll(connection.fd, events: Int16(POLLIN), timeout: timeout) != 0 {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            out.append(contentsOf: buffer.prefix(count))
        }
        return out
    }

    /// This machine's host name, or nil.
    static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static var processID: Int32 { getpid() }
}

// MARK: durable files

extension Platform {
    /// A failed file call, with the path and the C library's reason.
    struct FileError: Error, CustomStringConvertible {
        var operation: String
        var path: String
        var code: Int32
        var description: String { "cannot \(operation) \(path): \(Platform.errorMessage(code))" }
    }

    /// Appends `bytes` to `path` (created with `mode`), then fsyncs the file.
    static func appendDurably(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(operation: "open", path: path, code: errno) }
        defer { _ = close(fd) }
        try writeAll(fd, bytes, path: path)
        guard fsync(fd) == 0 else { throw FileError(operation: "fsync", path: path, code: errno) }
    }

    /// Replaces `path` atomically: writes a temporary file, fsyncs it, renames it over `path`,
    /// and fsyncs the directory.
    static func replaceDurably(_ bytes: [UInt8], at path: String, mode: mode_t = 0o600) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(operation: "open", path: temporary, code: errno) }
        do {
            try writeAll(fd, bytes, path: temporary)
            guard fsync(fd) == 0 else { throw FileError(operation: "fsync", path: temporary, code: errno) }
            _ = close(fd)
        } catch {
            _ = close(fd)
            throw error
        }
        guard rename(temporary, path) == 0 else { throw FileError(operation: "rename over", path: path, code: errno) }
        try fsyncDirectory(containing: path)
    }

    /// Fsyncs the directory holding `path`, so a new or renamed entry survives a crash.
    static func fsyncDirectory(containing path: String) throws {
        try fsyncDirectory(parentDirectory(of: path))
    }

    /// Fsyncs a directory itself.
    static func fsyncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(operation: "open directory", path: directory, code: errno) }
        defer { _ = close(fd) }
        guard fsync(fd) == 0 else { throw FileError(operation: "fsync directory", path: directory, code: errno) }
    }

    /// Creates `directory` (and parents) with `mode` when missing.
    static func makeDirectory(_ directory: String, mode: mode_t = 0o700) throws {
        var info = stat()
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
    static func permissions(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The directory part of `path`: `/a/b` for `/a/b/c`, `.` for a bare name.
    static func parentDirectory(of path: String) -> String {
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
}

// MARK: terminal

extension Platform {
    /// Whether standard output is a terminal: the stdout notifier colours only then.
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}

// MARK: locks and signals

extension Platform {
    /// Takes an exclusive, non-blocking lock on `path` (created 0600).
    /// - Returns: the open descriptor holding the lock, or nil when another process holds it.
    static func tryLock(_ path: String) throws -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileError(operation: "open", path: path, code: errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            _ = close(fd)
            if code == EWOULDBLOCK { return nil }
            throw FileError(operation: "lock", path: path, code: code)
        }
        return fd
    }

    /// Replaces a locked file's content with `text` (the holder's pid, for the next one to read).
    static func writeLockOwner(_ fd: Int32, _ text: String) {
        _ = ftruncate(fd, 0)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Releases a lock taken with `tryLock`.
    static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        _ = close(fd)
    }

    /// The signals the daemon handles.
    enum Signal: CaseIterable {
        case terminate, interrupt, hangup

        var number: Int32 {
            switch self {
            case .terminate: return SIGTERM
            case .interrupt: return SIGINT
            case .hangup: return SIGHUP
            }
        }
    }

    /// Stops the default action of `signal` so a dispatch source can handle it instead.
    static func takeOver(_ signal: Signal) {
        _ = Glibc.signal(signal.number, SIG_IGN)
    }

    /// Restores the default action of `signal`.
    static func restoreDefault(_ signal: Signal) {
        _ = Glibc.signal(signal.number, SIG_DFL)
    }
}
