/// Which parts of a JSON document to keep while parsing: a tree of member names.
///
/// A rule engine reads a few dozen of a signIn's hundreds of values. Parsing with a projection
/// builds only the kept members; the rest are walked over for their structure (brackets,
/// quotes, escapes) without building strings, numbers or dictionaries. A node marked `whole`
/// keeps everything under it. At an array the same node applies to every element, so
/// `value.status` keeps `status` of each element of `value`.
public struct JSONProjection: Sendable, Equatable {
    public private(set) var children: [String: JSONProjection] = [:]
    /// Keep the whole value here.
    public private(set) var whole: Bool

    /// A projection that keeps everything.
    public static let everything = JSONProjection(whole: true)

    init(whole: Bool) { self.whole = whole }

    /// Keeps each path (components of a dotted path). A numeric component (an array index)
    /// keeps its parent whole, as does a path that ends at a node.
    public init(paths: [[String]]) {
        whole = false
        for path in paths { insert(path[...]) }
    }

    private mutating func insert(_ path: ArraySlice<String>) {
        guard !whole else { return }
        guard let first = path.first, !first.allSatisfy(\.isNumber) || first.isEmpty else {
            whole = true
            children = [:]
            return
        }
        var child = children[first] ?? JSONProjection(whole: false)
        child.insert(path.dropFirst())
        children[first] = child
    }

    /// This projection with `other`'s members added.
    public func merging(_ other: JSONProjection) -> JSONProjection {
        if whole || other.whole { return .everything }
        var result = self
        for (key, child) in other.children {
            result.children[key] = result.children[key].map { $0.merging(child) } ?? child
        }
        return result
    }

    /// A projection keeping `child` under the member `key`.
    public static func member(_ key: String, _ child: JSONProjection) -> JSONProjection {
        var result = JSONProjection(whole: false)
        result.children[key] = child
        return result
    }
}
