import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TophhieSystem

/// A long read's progress on standard error: the sign-ins read so far, on one line rewritten in
/// place, only once the read has taken over `after` seconds and only on a terminal (a pipe or a
/// log file gets nothing).
final class ReadingProgress: @unchecked Sendable {
    /// Reads quicker than this say nothing.
    static let after: TimeInterval = 2

    private let lock = NSLock()
    private var count = 0
    private var shown = false
    private let started: ContinuousClock.Instant
    private let what: String
    private let io: CommandIO

    init(_ what: String, io: CommandIO) {
        self.what = what
        self.io = io
        started = .now
    }

    /// The line for a read `elapsed` seconds in with `count` sign-ins read; nil before `after`.
    static func line(_ what: String, elapsed: TimeInterval, count: Int) -> String? {
        guard elapsed >= after else { return nil }
        return "\(what): \(count) sign-ins read so far (\(Int(elapsed)) s)"
    }

    /// Notes `count` sign-ins read so far, and shows it when it is time to.
    func update(_ count: Int) {
        lock.withLock { self.count = count }
        tick()
    }

    /// Adds `more` sign-ins read.
    func add(_ more: Int) {
        lock.withLock { count += more }
        tick()
    }

    /// Shows the line as it stands (called now and then while a read waits on the network).
    func tick() {
        guard io.errIsTerminal else { return }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let text = lock.withLock { () -> String? in
            guard let line = Self.line(what, elapsed: seconds, count: count) else { return nil }
            shown = true
            return line
        }
        if let text { io.err("\u{1B}[2K" + text + "\r") }
    }

    /// Clears the line, if one was shown.
    func finish() {
        if lock.withLock({ shown }) { io.err("\u{1B}[2K") }
    }
}

/// A transport that counts the sign-ins in each page of the log it brings back, for
/// `ReadingProgress` while Graph is read.
struct CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let progress: ReadingProgress

    func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply {
        let reply = try await inner.send(request, deadline: deadline)
        if request.url?.path.hasSuffix("auditLogs/signIns") == true {
            // One `createdDateTime` a sign-in: counted without parsing the page twice.
            progress.add(Self.occurrences(of: Array("\"createdDateTime\"".utf8), in: reply.body))
        }
        return reply
    }

    var waitsBusilyOnNewConnections: Bool { inner.waitsBusilyOnNewConnections }

    static func occurrences(of needle: [UInt8], in data: Data) -> Int {
        var n = 0
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard bytes.count >= needle.count, let first = needle.first else { return }
            var i = 0
            while i <= bytes.count - needle.count {
                if bytes[i] == first {
                    var j = 1
                    while j < needle.count && bytes[i + j] == needle[j] { j += 1 }
                    if j == needle.count { n += 1; i += needle.count; continue }
                }
                i += 1
            }
        }
        return n
    }
}
