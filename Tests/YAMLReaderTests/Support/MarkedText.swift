import YAMLReader

/// Text with a `1️⃣` marker showing where an error must point; the marker is removed from the text.
struct MarkedText: CustomStringConvertible, Sendable {
    static let marker = "1️⃣"

    var text: String
    var mark: YAMLMark

    init(_ marked: String) {
        let markerScalars = Array(Self.marker.unicodeScalars)
        var scalars = String.UnicodeScalarView()
        var line = 1
        var column = 1
        var found = YAMLMark(line: 0, column: 0)
        let input = Array(marked.unicodeScalars)
        var index = 0
        while index < input.count {
            if input[index...].starts(with: markerScalars) {
                found = YAMLMark(line: line, column: column)
                index += markerScalars.count
                continue
            }
            let scalar = input[index]
            scalars.append(scalar)
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }
        text = String(scalars)
        mark = found
    }

    var description: String { text.debugDescription }
}

/// The error `body` throws, as `line:column: message`, or a note that it did not throw.
func yamlErrorText(_ body: () throws -> Any) -> String {
    do {
        _ = try body()
        return "no error"
    } catch let error as YAMLError {
        return error.description
    } catch {
        return "unexpected error type: \(error)"
    }
}
