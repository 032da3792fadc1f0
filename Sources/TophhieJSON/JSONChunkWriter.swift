import Foundation

/// Compact JSON written piece by piece into a buffer on the stack, which is appended to the
/// caller's bytes whenever the next piece may not fit and at the end.
///
/// An alert's line is about 60 pieces. Each appended to an array on its own paid the array's
/// uniqueness and capacity checks and a generic copy (about 100 instructions a piece, a third of
/// writing an alert-heavy replay's lines); here a piece is a bounds test and a copy.
package struct JSONChunkWriter {
    /// Room on the stack: a kilobyte is always taken there (a larger room is first checked
    /// against the thread's stack, which a reading thread's failed, and was then allocated).
    static let capacity = 1024

    private let target: UnsafeMutablePointer<[UInt8]>
    private let buffer: UnsafeMutablePointer<UInt8>
    private var count = 0

    private init(target: UnsafeMutablePointer<[UInt8]>, buffer: UnsafeMutablePointer<UInt8>) {
        self.target = target
        self.buffer = buffer
    }

    /// Appends to `out` what `body` writes.
    package static func appending(to out: inout [UInt8], _ body: (inout JSONChunkWriter) -> Void) {
        withUnsafeMutablePointer(to: &out) { target in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
                var writer = JSONChunkWriter(target: target, buffer: buffer.baseAddress!)
                body(&writer)
                writer.flush()
            }
        }
    }

    /// Moves what the buffer holds onto the caller's bytes.
    private mutating func flush() {
        guard count > 0 else { return }
        target.pointee.append(contentsOf: UnsafeBufferPointer(start: buffer, count: count))
        count = 0
    }

    /// Makes room for `needed` bytes in the buffer, moving what it holds on first when they would
    /// not fit; false when they cannot fit in it at all (then write past it: it is empty).
    @inline(__always) private mutating func room(_ needed: Int) -> Bool {
        if count + needed > Self.capacity { flush() }
        return needed <= Self.capacity
    }

    @inline(__always) package mutating func put(_ byte: UInt8) {
        _ = room(1)
        buffer[count] = byte
        count += 1
    }

    @inline(__always) package mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard room(bytes.count) else { return target.pointee.append(contentsOf: bytes) }
        if let source = bytes.baseAddress, !bytes.isEmpty {
            UnsafeMutableRawPointer(buffer + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Bytes of JSON written before, as they are.
    package mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { put($0) }
    }

    /// A piece of JSON written as it is (a member's name with its quotes and colon).
    @inline(__always) package mutating func put(_ piece: StaticString) {
        piece.withUTF8Buffer { put(UnsafeRawBufferPointer($0)) }
    }

    /// A string, quoted and escaped as `JSONWriter.writeString` writes it.
    package mutating func string(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            // Every byte escaped is at most six.
            guard room(2 + 6 * bytes.count) else { return JSONWriter.writeString(text, into: &target.pointee) }
            let raw = UnsafeRawBufferPointer(bytes)
            buffer[count] = 0x22
            count += 1
            var start = 0
            while start < raw.count {
                let stop = JSONStringScan.quoteBackslashOrControl(in: raw, from: start)
                if stop > start, let source = raw.baseAddress {
                    UnsafeMutableRawPointer(buffer + count).copyMemory(from: source + start, byteCount: stop - start)
                    count += stop - start
                }
                guard stop < raw.count else { break }
                count += JSONWriter.writeEscaped(raw[stop], at: buffer + count)
                start = stop + 1
            }
            buffer[count] = 0x22
            count += 1
        }
        if done == nil {
            flush()
            JSONWriter.writeString(text, into: &target.pointee)
        }
    }

    /// An integer's decimal digits, as `JSONWriter.writeInteger` writes them.
    package mutating func integer(_ value: Int64) {
        JSONWriter.withDigits(of: value) { put($0) }
    }

    /// A time as `GraphTimestamp.alertText` writes it, quoted.
    package mutating func time(_ date: Date) {
        _ = room(26)
        guard let length = GraphTimestamp.writeAlertText(date, into: UnsafeMutableBufferPointer(start: buffer + count + 1, count: 24)) else {
            // A year past 9999 or before 0: written by Foundation.
            var text = GraphTimestamp.alertText(date)
            put(0x22)
            text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
            return put(0x22)
        }
        buffer[count] = 0x22
        buffer[count + 1 + length] = 0x22
        count += length + 2
    }
}
