import Foundation

/// Turns the bytes of one connection into one request, or into the reason it must be refused.
///
/// Pure: it never reads a socket. The connection feeds it bytes and does what each `Action` says.
struct HTTPRequestDecoder {
    /// Size bounds that keep a misbehaving client from exhausting memory.
    struct Limits: Sendable {
        var maxHeadBytes = 64 * 1024
        var maxBodyBytes = 16 * 1024 * 1024
    }

    /// What the connection should do next.
    enum Action {
        /// Read more bytes and call `consume` again.
        case needMoreBytes
        /// The client sent `Expect: 100-continue`: send `100 Continue`, then keep reading.
        case sendContinue
        /// The request is complete.
        case complete(HTTPRequest)
        /// Refuse with this status and message, then close.
        case reject(status: Int, message: String)
    }

    private struct Head {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var bodyLength: Int
        var expectsContinue: Bool
        var persistent: Bool
    }

    private enum State {
        case readingHead
        case readingBody(Head)
        case finished
    }

    private let limits: Limits
    private var state: State = .readingHead
    private var buffer: [UInt8] = []
    private var scannedUpTo = 0
    private var continueSent = false

    /// Whether the client asked to keep the connection open after the request just completed
    /// (HTTP/1.1 without `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`).
    private(set) var clientKeepsConnection = false
    /// Bytes that arrived after the completed request: the start of the next one.
    private(set) var remainder: [UInt8] = []

    /// True while no byte of a request has arrived: a connection waiting here may close quietly.
    var isIdle: Bool {
        if case .readingHead = state { return buffer.isEmpty }
        return false
    }

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Adds bytes read from the connection and says what to do next.
    mutating func consume(_ bytes: ArraySlice<UInt8>) -> Action {
        buffer.append(contentsOf: bytes)
        return advance()
    }

    /// The peer closed its side before a whole request arrived.
    mutating func endOfStream() -> Action {
        switch state {
        case .readingHead where buffer.isEmpty, .finished:
            return .reject(status: 0, message: "connection closed before a request arrived")
        case .readingHead:
            return .reject(status: 400, message: "the request head ended before its blank line")
        case .readingBody(let head):
            return .reject(status: 400, message: "the body ended after \(buffer.count) of \(head.bodyLength) bytes")
        }
    }

    private mutating func advance() -> Action {
        switch state {
        case .finished:
            return .needMoreBytes
        case .readingHead:
            guard let headEnd = findHeadEnd() else {
                if buffer.count > limits.maxHeadBytes {
                    state = .finished
                    return .reject(status: 431, message: "request head exceeds \(limits.maxHeadBytes) bytes")
                }
                return .needMoreBytes
            }
            if headEnd > limits.maxHeadBytes {
                state = .finished
                return .reject(status: 431, message: "request head exceeds \(limits.maxHeadBytes) bytes")
            }
            let headBytes = buffer[..<headEnd]
            buffer.removeFirst(headEnd + 4)
            switch parseHead(headBytes) {
            case .failure(let rejection):
                state = .finished
                return .reject(status: rejection.status, message: rejection.message)
            case .success(let head):
                state = .readingBody(head)
                return advance()
            }
        case .readingBody(let head):
            if buffer.count >= head.bodyLength {
                state = .finished
                let body = Data(buffer.prefix(head.bodyLength))
                remainder = Array(buffer.dropFirst(head.bodyLength))
                clientKeepsConnection = head.persistent
                buffer.removeAll()
                return .complete(HTTPRequest(method: head.method, target: head.target, headers: head.headers, body: body))
            }
            if head.expectsContinue && !continueSent && buffer.isEmpty {
                continueSent = true
                return .sendContinue
            }
            return .needMoreBytes
        }
    }

    /// The offset of the `\r\n\r\n` that ends the head, scanning only bytes not scanned before.
    private mutating func findHeadEnd() -> Int? {
        let start = max(0, scannedUpTo - 3)
        if buffer.count >= 4 {
            var index = start
            while index + 3 < buffer.count {
                if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                    return index
                }
                index += 1
            }
        }
        scannedUpTo = buffer.count
        return nil
    }

    private struct Rejection: Error {
        var status: Int
        var message: String
    }

    private func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<Head, Rejection> {
        // ISO-8859-1 maps every byte to a character, so no input can make decoding fail.
        let text = String(bytes.map { Character(Unicode.Scalar($0)) })
        var lines = text.components(separatedBy: "\r\n")
        // Tolerate stray empty lines before the request line (RFC 9112 §2.2).
        while lines.first == "" { lines.removeFirst() }
        guard let requestLine = lines.first else {
            return .failure(Rejection(status: 400, message: "missing request line"))
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(Rejection(status: 400, message: "malformed request line"))
        }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard !method.isEmpty, method.unicodeScalars.allSatisfy(Self.isTokenScalar) else {
            return .failure(Rejection(status: 400, message: "malformed method"))
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            if version.hasPrefix("HTTP/") {
                return .failure(Rejection(status: 505, message: "only HTTP/1.0 and HTTP/1.1 are supported"))
            }
            return .failure(Rejection(status: 400, message: "malformed HTTP version"))
        }
        guard target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://"),
              target.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            return .failure(Rejection(status: 400, message: "malformed request target"))
        }
        let split = RequestTarget.split(target)
        guard FormEncoding.decodePairs(split.query) != nil else {
            return .failure(Rejection(status: 400, message: "malformed percent-encoding in the query"))
        }

        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            if line.first == " " || line.first == "\t" {
                return .failure(Rejection(status: 400, message: "folded header lines are not accepted"))
            }
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(Rejection(status: 400, message: "malformed header line"))
            }
            let name = String(line[..<colon])
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isTokenScalar) else {
                return .failure(Rejection(status: 400, message: "malformed header name"))
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.append((name, value))
        }

        func values(_ name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }

        let transferEncodings = values("Transfer-Encoding")
        if !transferEncodings.isEmpty {
            if transferEncodings.joined(separator: ",").lowercased().contains("chunked") {
                return .failure(Rejection(status: 411, message: "chunked request bodies are not supported; send Content-Length"))
            }
            return .failure(Rejection(status: 501, message: "transfer codings are not supported"))
        }

        var bodyLength = 0
        let lengths = Set(values("Content-Length").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
        if lengths.count > 1 {
            return .failure(Rejection(status: 400, message: "conflicting Content-Length values"))
        }
        if let length = lengths.first {
            guard !length.isEmpty, length.unicodeScalars.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }) else {
                return .failure(Rejection(status: 400, message: "malformed Content-Length"))
            }
            guard length.count <= 12, let parsed = Int(length), parsed <= limits.maxBodyBytes else {
                return .failure(Rejection(status: 413, message: "request body exceeds \(limits.maxBodyBytes) bytes"))
            }
            bodyLength = parsed
        }
        let expectsContinue = values("Expect").contains { $0.caseInsensitiveCompare("100-continue") == .orderedSame }
        // RFC 9112 §9.3: HTTP/1.1 persists unless `close` is among the Connection options.
        let options = values("Connection").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let persistent = version == "HTTP/1.1" ? !options.contains("close") : options.contains("keep-alive")
        return .success(Head(method: method, target: target, headers: headers, bodyLength: bodyLength, expectsContinue: expectsContinue, persistent: persistent))
    }

    private static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": return true
        default: return false
        }
    }
}
