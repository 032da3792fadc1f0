/// A coding key for any string, so decoders can list and reject keys they do not know.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws when the object has a key outside `allowed`, naming it, so typos in scenario files
    /// are reported instead of silently ignored.
    func rejectUnknownKeys(allowed: Set<String>, in type: String) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: codingPath + [key],
                debugDescription: "unknown key '\(key.stringValue)' in \(type); expected one of: \(allowed.sorted().joined(separator: ", "))"
            ))
        }
    }
}
