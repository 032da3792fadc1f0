import Foundation
import Testing
@testable import TophhieRules

/// The field catalogue against Microsoft's own v1.0 metadata (`graph-v1-properties.md`, taken
/// from msgraph-metadata's v1.0 CSDL): a documented property never warns "can never match".
@Suite(.timeLimit(.minutes(1))) struct FieldCatalogContractTests {
    /// Each documented path of the signIn entity and the complex types it nests.
    static let documentedPaths: [String] = {
        let url = RepoPaths.root.appendingPathComponent("../shared/reference/graph-v1-properties.md").standardized
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let prefixes = ["EntityType signIn": "", "ComplexType signInStatus": "status.", "ComplexType deviceDetail": "deviceDetail.",
                        "ComplexType signInLocation": "location.", "ComplexType geoCoordinates": "location.geoCoordinates."]
        var paths: [String] = []
        var prefix: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("## ") {
                prefix = prefixes.first { line.dropFirst(3).hasPrefix($0.key + " ") }?.value
            } else if let prefix, !line.isEmpty {
                for property in line.split(separator: ",") {
                    let name = property.split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                    if !name.isEmpty { paths.append(prefix + name) }
                }
            }
        }
        return paths
    }()

    @Test func theReferenceIsRead() {
        // 29 signIn, 3 status, 7 deviceDetail, 4 location, 3 geoCoordinates.
        #expect(Self.documentedPaths.count == 46)
    }

    @Test func everyDocumentedPropertyResolvesWithoutAWarning() {
        let warned = Self.documentedPaths.filter { SignInFieldCatalog.resolve($0).warning != nil }
        #expect(warned == [], "documented in v1.0 but flagged: \(warned)")
        let notBeta = Self.documentedPaths.filter { SignInFieldCatalog.betaOnly.contains($0) }
        #expect(notBeta == [])
    }
}
