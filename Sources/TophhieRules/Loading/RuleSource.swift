import Foundation

/// A rule file's name and text: what the loader reads. The name only labels diagnostics.
public struct RuleSource: Sendable, Hashable {
    public var path: String
    public var text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    /// Whether a file name is a rule file: `.yml`/`.yaml`, but not a `*.tests.yml` case file.
    public static func isRuleFile(_ name: String) -> Bool {
        (name.hasSuffix(".yml") || name.hasSuffix(".yaml")) && !isTestFile(name)
    }

    /// Whether a file name holds rule test cases (`failure-burst.tests.yml`).
    public static func isTestFile(_ name: String) -> Bool {
        name.hasSuffix(".tests.yml") || name.hasSuffix(".tests.yaml")
    }

    /// Reads files and folders (recursively) in sorted order, and the built-in pack where its path
    /// (`builtin:rules`) is named; `select` picks which names count.
    /// - Throws: `RuleFileError` for a path that does not exist or cannot be read as UTF-8.
    public static func read(paths: [String], select: (String) -> Bool = RuleSource.isRuleFile) throws -> [RuleSource] {
        var sources: [RuleSource] = []
        let manager = FileManager.default
        for path in paths {
            if path == BuiltInRulePack.path {
                sources += BuiltInRulePack.sources(select: select)
                continue
            }
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw RuleFileError(path: path, message: "no such file or folder")
            }
            var files: [String] = []
            if isDirectory.boolValue {
                guard let enumerator = manager.enumerator(atPath: path) else {
                    throw RuleFileError(path: path, message: "cannot list the folder")
                }
                for case let relative as String in enumerator where select((relative as NSString).lastPathComponent) {
                    files.append((path as NSString).appendingPathComponent(relative))
                }
                files.sort()
            } else if select((path as NSString).lastPathComponent) {
                files = [path]
            }
            for file in files {
                guard let data = manager.contents(atPath: file) else {
                    throw RuleFileError(path: file, message: "cannot be read")
                }
                guard let text = String(data: data, encoding: .utf8) else {
                    throw RuleFileError(path: file, message: "is not UTF-8 text")
                }
                sources.append(RuleSource(path: file, text: text))
            }
        }
        return sources
    }
}

/// A rule path that could not be read.
package struct RuleFileError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
    public var errorDescription: String? { description }
}
