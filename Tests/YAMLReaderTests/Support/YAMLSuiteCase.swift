import Foundation

/// One case of the YAML project's test suite: a folder with `in.yaml`, and `in.json` or `error`.
struct YAMLSuiteCase: CustomStringConvertible, Sendable {
    /// The folder name, `ABCD` or `ABCD/01` for a case with variants.
    var id: String
    var title: String
    var yaml: String
    /// The expected documents, or nil when the suite gives none.
    var expectedJSON: String?
    var mustFail: Bool

    var description: String { "\(id) (\(title))" }

    /// Every case under the suite folder, sorted by id.
    static func all(in folder: URL) -> [YAMLSuiteCase] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder.path) else { return [] }
        var cases: [YAMLSuiteCase] = []
        for name in names.sorted() {
            let caseFolder = folder.appendingPathComponent(name)
            if let loaded = load(caseFolder, id: name) {
                cases.append(loaded)
            } else if let variants = try? manager.contentsOfDirectory(atPath: caseFolder.path) {
                for variant in variants.sorted() {
                    if let loaded = load(caseFolder.appendingPathComponent(variant), id: "\(name)/\(variant)") {
                        cases.append(loaded)
                    }
                }
            }
        }
        return cases
    }

    private static func load(_ folder: URL, id: String) -> YAMLSuiteCase? {
        func read(_ file: String) -> String? {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path) else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
        guard let yaml = read("in.yaml") else { return nil }
        let title = read("===")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let mustFail = FileManager.default.fileExists(atPath: folder.appendingPathComponent("error").path)
        return YAMLSuiteCase(id: id, title: title, yaml: yaml, expectedJSON: read("in.json"), mustFail: mustFail)
    }
}
