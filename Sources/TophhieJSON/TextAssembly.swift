/// A string put together from pieces with one allocation: the pieces' bytes are copied into a
/// buffer on the stack, which becomes the string at the end.
///
/// Appending a string to a string (`+=`) went through the standard library's interpolation path,
/// about 330 instructions a piece; an alert's sentence and summary are a dozen pieces each, a
/// tenth of making an alert-heavy replay's alerts. Kept here, beside the JSON writers, so that the
/// rules' module reads as what an alert says, not how its bytes are copied.
package struct TextAssembly {
    /// Pieces longer than this together are put together again in a buffer of their size.
    package static let stackBytes = 1024

    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes appended so far, counted on past the buffer's end (nothing is written there).
    package private(set) var count = 0

    private init(buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    /// The string `build` appends, made once.
    /// - Parameter build: appends the pieces in order; called a second time, with the same
    ///   pieces, only when they are longer than `stackBytes`.
    package static func make(_ build: (inout TextAssembly) -> Void) -> String {
        let made: String? = withUnsafeTemporaryAllocation(byteCount: stackBytes, alignment: 1) { buffer in
            var text = TextAssembly(buffer: buffer)
            build(&text)
            return text.count <= stackBytes ? text.string : nil
        }
        if let made { return made }
        // Longer than the stack's buffer: counted, then put together in a buffer of that size.
        var counting = TextAssembly(buffer: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        build(&counting)
        return withUnsafeTemporaryAllocation(byteCount: counting.count, alignment: 1) { buffer in
            var text = TextAssembly(buffer: buffer)
            build(&text)
            return text.string
        }
    }

    /// The bytes written (never past the buffer, whatever was counted).
    private var string: String {
        let written = min(count, buffer.count)
        return String(unsafeUninitializedCapacity: written) { target in
            guard written > 0, let source = buffer.baseAddress, let destination = target.baseAddress else { return 0 }
            UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: written)
            return written
        }
    }

    /// Appends raw UTF-8 bytes (a whole string's, or a piece ending at a character's end).
    package mutating func append(bytes: UnsafeRawBufferPointer) {
        let end = count + bytes.count
        if end <= buffer.count, let source = bytes.baseAddress, let base = buffer.baseAddress {
            (base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count = end
    }

    package mutating func append(_ text: String) {
        // A native or small string's bytes are read where they lie; any other is copied out.
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { append(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(text.utf8).withUnsafeBytes { append(bytes: $0) } }
    }

    package mutating func append(_ text: Substring) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { append(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(text.utf8).withUnsafeBytes { append(bytes: $0) } }
    }

    /// Appends a number's decimal digits (`-` first when negative), as `JSONWriter` writes them.
    package mutating func append(_ number: Int64) {
        JSONWriter.withDigits(of: number) { append(bytes: $0) }
    }
}
