// The only test file importing Glibc: a raw TCP client for bytes URLSession would never send.
import Glibc

enum RawSocket {
    /// Connects to 127.0.0.1:port, sends `bytes`, optionally half-closes, and reads until the server
    /// closes (or `readTimeout` passes). Nil when the connection could not be made.
    static func exchange(port: UInt16, bytes: [UInt8], halfClose: Bool = true, readTimeout: Int = 5) -> [UInt8]? {
        guard let fd = connectLoopback(port: port) else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }
        if halfClose { _ = shutdown(fd, Int32(SHUT_WR)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received.append(contentsOf: chunk[..<count])
        }
        return received
    }

    /// Whether a TCP connection to 127.0.0.1:port is accepted.
    static func canConnect(port: UInt16) -> Bool {
        guard let fd = connectLoopback(port: port) else { return false }
        close(fd)
        return true
    }

    private static func connectLoopback(port: UInt16) -> Int32? {
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
            close(fd)
            return nil
        }
        return fd
    }
}
