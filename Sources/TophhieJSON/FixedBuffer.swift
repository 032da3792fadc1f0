extension UnsafeMutableBufferPointer {
    /// A buffer of `array`'s elements, allocated for a table that is read through pointers and
    /// never changed: its owner deallocates it (`deallocate()`) when it goes.
    ///
    /// Tables of plain values (a slot layout's nodes, a condition's steps) are read this way in
    /// the matching loops: read out of an array, each read retained and released the array.
    public static func copying(_ array: [Element]) -> UnsafeMutableBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: Swift.max(array.count, 1))
        _ = buffer.initialize(from: array)
        return UnsafeMutableBufferPointer(rebasing: buffer[..<array.count])
    }
}
