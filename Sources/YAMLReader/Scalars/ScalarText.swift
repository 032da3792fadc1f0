extension String {
    /// The text of `scalars`, encoded as UTF-8 in one buffer.
    ///
    /// Making a `String.UnicodeScalarView` of them appends the scalars one at a time through a
    /// generic path: about ten thousand instructions a scalar node, half of loading a rule folder.
    /// - Complexity: O(n).
    init<Scalars: Collection>(scalars: Scalars) where Scalars.Element == Unicode.Scalar {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for scalar in scalars {
            if scalar.isASCII { bytes.append(UInt8(truncatingIfNeeded: scalar.value)) } else { bytes.append(contentsOf: scalar.utf8) }
        }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
