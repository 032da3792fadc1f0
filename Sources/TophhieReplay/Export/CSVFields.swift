/// One CSV record's fields as `CSVRows` reads them: their bytes, unquoted, one after another in
/// one list, and where each ends. Each field was a `String` of its own, made, retained and freed
/// in both passes of every row; now the mapping reads a field of JSON text straight from its
/// bytes, and makes text only of the fields it keeps as text.
struct CSVFields: Sendable, Equatable {
    /// The fields' bytes, one after another.
    let bytes: [UInt8]
    /// Where each field ends in `bytes`; it starts where the one before it ends.
    let ends: [Int]

    var count: Int { ends.count }

    /// A field's text.
    subscript(index: Int) -> String {
        withView { $0.text(index) }
    }

    /// Every field's text.
    var strings: [String] {
        withView { view in (0..<view.count).map(view.text) }
    }

    /// The fields read in place, for as long as `withView`'s body runs.
    struct View {
        let bytes: UnsafeRawBufferPointer
        let ends: UnsafeBufferPointer<Int>

        var count: Int { ends.count }

        /// A field's bytes.
        subscript(index: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]])
        }

        /// A field's text (bytes that are not UTF-8 read as U+FFFD, as a `String` reads them).
        func text(_ index: Int) -> String {
            String(decoding: self[index], as: UTF8.self)
        }
    }

    /// Runs `body` with the fields read in place.
    func withView<T>(_ body: (View) throws -> T) rethrows -> T {
        try bytes.withUnsafeBytes { bytes in try ends.withUnsafeBufferPointer { ends in try body(View(bytes: bytes, ends: ends)) } }
    }
}
