import Testing
import YAMLReader

/// Every node knows its 1-based line and column.
@Suite(.timeLimit(.minutes(20))) struct MarkTests {
    /// Follows mapping keys and sequence indexes from `node`.
    static func node(_ node: YAMLNode, at path: [String]) -> YAMLNode? {
        var current = node
        for step in path {
            if let items = current.sequence, let index = Int(step), items.indices.contains(index) {
                current = items[index]
            } else if let value = current.mappingValue(forKey: step) {
                current = value
            } else {
                return nil
            }
        }
        return current
    }

    @Test(arguments: [
        ("a:\n  b: [x, {y: z}]\n", [String](), "1:1"),
        ("a:\n  b: [x, {y: z}]\n", ["a"], "2:3"),
        ("a:\n  b: [x, {y: z}]\n", ["a", "b"], "2:6"),
        ("a:\n  b: [x, {y: z}]\n", ["a", "b", "0"], "2:7"),
        ("a:\n  b: [x, {y: z}]\n", ["a", "b", "1"], "2:10"),
        ("a:\n  b: [x, {y: z}]\n", ["a", "b", "1", "y"], "2:14"),
        ("- x\n- k: v\n  l: |\n    t\n", [], "1:1"),
        ("- x\n- k: v\n  l: |\n    t\n", ["0"], "1:3"),
        ("- x\n- k: v\n  l: |\n    t\n", ["1"], "2:3"),
        ("- x\n- k: v\n  l: |\n    t\n", ["1", "k"], "2:6"),
        ("- x\n- k: v\n  l: |\n    t\n", ["1", "l"], "3:6"),
        ("a:\n", ["a"], "1:3"),
        ("a:\n- x\n", ["a"], "2:1"),
        ("a:\n- x\n", ["a", "0"], "2:3"),
        ("k: 'multi\n  line'\n", ["k"], "1:4"),
        ("k: plain\n  more\n", ["k"], "1:4"),
        ("\n\n  # c\n  k:  \"v\"", ["k"], "4:7"),
        ("é: ü", ["é"], "1:4"),
        ("[a: b]", ["0"], "1:2"),
        ("[a: b]", ["0", "a"], "1:5"),
        ("{a, b: c}", ["a"], "1:3"),
        ("-\n  - x\n", ["0"], "2:3"),
        ("a: 1\r\nb: 2\r\n", ["b"], "2:4"),
    ])
    func nodeMarks(_ input: String, _ path: [String], _ expected: String) throws {
        let root = try YAMLReader.document(input)
        let node = try #require(Self.node(root, at: path), "no node at \(path)")
        #expect(node.mark.description == expected)
    }

    @Test func keyMarksPointAtKeys() throws {
        let root = try YAMLReader.document("a: 1\n  \nbb: 2\n'c': 3")
        #expect(root.mapping?.map(\.key.mark.description) == ["1:1", "3:1", "4:1"])
    }

    @Test func documentMarks() throws {
        let documents = try YAMLReader.documents("---\n\"q\"\n--- x\n---\n")
        #expect(documents.map(\.mark.description) == ["2:1", "3:5", "4:4"])
    }
}
