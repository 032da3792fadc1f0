import Foundation

/// Reads the YAML subset rule and config files use.
///
/// Supported: block mappings and sequences, flow collections, plain, quoted and block scalars,
/// comments and multiple documents. Anchors, aliases, tags, complex keys, directives and duplicate
/// keys are errors with a line and column, never a silent misreading.
public enum YAMLReader {
    /// Every document in `text`; an empty or comment-only stream has none.
    /// - Throws: `YAMLError` with the line and column of the first problem.
    /// - Complexity: O(n) in the length of `text`.
    public static func documents(_ text: String) throws -> [YAMLNode] {
        var parser = try YAMLParser(text)
        return try parser.parseStream()
    }

    /// The single document in `text`.
    /// - Throws: `YAMLError` on a reading problem, or when the stream holds no document or several.
    public static func document(_ text: String) throws -> YAMLNode {
        let all = try documents(text)
        guard all.count == 1, let only = all.first else {
            let mark = all.count > 1 ? all[1].mark : YAMLMark(line: 1, column: 1)
            throw YAMLError.documentCount(all.count, at: mark)
        }
        return only
    }
}
