/// Convenience reads over a node tree, for rule and config loaders.
extension YAMLNode {
    /// The scalar, when this node is one.
    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = kind { return scalar }
        return nil
    }

    /// The scalar's text, when this node is a scalar.
    public var scalarText: String? { scalar?.text }

    /// The items, when this node is a sequence.
    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    /// The pairs in document order, when this node is a mapping.
    public var mapping: [YAMLPair]? {
        if case .mapping(let pairs) = kind { return pairs }
        return nil
    }

    /// True for a plain scalar the core schema reads as null (including an absent value).
    public var isNull: Bool { scalar?.coreValue == .null }

    /// The value stored under the key whose scalar text is `key`, when this node is a mapping that has it.
    /// - Complexity: O(n) in the number of pairs.
    public func mappingValue(forKey key: String) -> YAMLNode? {
        mapping?.first { $0.key.scalarText == key }?.value
    }

    /// The key node whose scalar text is `key`, for pointing diagnostics at it.
    public func mappingKey(_ key: String) -> YAMLNode? {
        mapping?.first { $0.key.scalarText == key }?.key
    }
}
