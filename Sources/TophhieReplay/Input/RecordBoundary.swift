import TophhieJSON

/// Where a record of a file seems to start, from a stretch of its bytes alone: after a new
/// line (JSON lines), or at the brace of `}, {` (an array of objects). Only a guess: such bytes
/// also occur inside a record (between objects of a nested list), so a caller reads a record
/// there and checks it is where the file's own reading would have found one.
enum RecordBoundary {
    /// The next place at or after `from` in `bytes` where a record could start, and where the
    /// separator before it (the comma, the new line) is.
    static func next(in bytes: UnsafeRawBufferPointer, layout: JSONElementSplitter.Layout, from: Int) -> (start: Int, separator: Int)? {
        var i = from
        if layout == .lines {
            while i < bytes.count {
                if bytes[i] == 0x0A, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "{") { return (i + 1, i) }
                i += 1
            }
            return nil
        }
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "}") else { i += 1; continue }
            var j = i + 1
            while j < bytes.count, JSONElementSplitter.isSpace(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: ",") else { i += 1; continue }
            let comma = j
            j += 1
            while j < bytes.count, JSONElementSplitter.isSpace(bytes[j]) { j += 1 }
            if j < bytes.count, bytes[j] == UInt8(ascii: "{"), looksLikeSignIn(bytes, at: j) { return (j, comma) }
            i += 1
        }
        return nil
    }

    /// Whether the object at `start` has a time of its own (Graph's `createdDateTime`, a Log
    /// Analytics row's `CreatedDateTime` or `TimeGenerated`): the objects of beta's nested lists
    /// (`authenticationDetails`, the applied policies) do not, so a guess is not spent on `}, {`
    /// between them. An object running past `bytes` is not judged here.
    static func looksLikeSignIn(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Bool {
        var depth = 0
        var i = start
        var inString = false
        while i < bytes.count {
            let byte = bytes[i]
            if inString {
                if byte == UInt8(ascii: "\\") { i += 2; continue }
                if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 {
                    let object = UnsafeRawBufferPointer(rebasing: bytes[start...i])
                    guard case .object(let members)? = try? JSONValue.parse(object) else { return false }
                    return members["createdDateTime"] != nil || members["CreatedDateTime"] != nil || members["TimeGenerated"] != nil
                }
            }
            i += 1
        }
        return true
    }
}
