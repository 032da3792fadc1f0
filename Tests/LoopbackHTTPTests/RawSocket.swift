import TophhieSystem

/// A raw TCP client for bytes URLSession would never send, on the system layer's socket calls.
enum RawSocket {
    /// Connects to 127.0.0.1:port, sends `bytes`, optionally half-closes, and reads until the server
    /// closes (or `readTimeout` passes). Nil when the connection could not be made.
    static func exchange(port: UInt16, bytes: [UInt8], halfClose: Bool = true, readTimeout: Int = 5) -> [UInt8]? {
        guard let fd = ServerSocket.connectLoopback(port: port) else { return nil }
        defer { ServerSocket.close(fd) }
        ServerSocket.setReceiveTimeout(fd, seconds: Double(readTimeout))
        _ = ServerSocket.sendAll(fd, bytes)
        if halfClose { ServerSocket.shutdownWrite(fd) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = ServerSocket.receive(fd, into: &chunk)
            if count <= 0 { break }
            received.append(contentsOf: chunk[..<count])
        }
        return received
    }

    /// Whether a TCP connection to 127.0.0.1:port is accepted.
    static func canConnect(port: UInt16) -> Bool {
        guard let fd = ServerSocket.connectLoopback(port: port) else { return false }
        ServerSocket.close(fd)
        return true
    }
}
