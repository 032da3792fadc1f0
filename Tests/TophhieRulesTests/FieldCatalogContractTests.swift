import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieRules

/// The field catalogue against Microsoft's own v1.0 metadata (`graph-v1-properties.md`, taken
/// from msgraph-metadata's v1.0 CSDL): a documented property never warns "can never match".
@Suite(.timeLimit(.minutes(20))) struct FieldCatalogContractTests {
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

    @Test(arguments: SignInSchema.allCases) func everyDocumentedPropertyResolvesWithoutAWarning(schema: SignInSchema) {
        let warned = Self.documentedPaths.filter { SignInFieldCatalog.resolve($0, schema: schema).warning != nil }
        #expect(warned == [], "documented in v1.0 but flagged: \(warned)")
    }

    /// Beta's catalogue (msgraph-metadata's beta CSDL): a beta property warns exactly when the
    /// rules are checked against v1.0; one in neither version always warns.
    @Test func aBetaPropertyWarnsOnlyAgainstVersionOne() {
        #expect(BetaSignInFields.paths.count == 156)
        let betaOnly = BetaSignInFields.paths.filter { !SignInFieldCatalog.v1Paths.contains($0) }
        #expect(betaOnly.count > 100)
        for path in betaOnly {
            #expect(SignInFieldCatalog.resolve(path, schema: .beta).warning == nil, "\(path)")
            #expect(SignInFieldCatalog.resolve(path, schema: .v1).warning?.contains("exists only in the Graph beta signIn, and graph.api is v1.0") == true, "\(path)")
        }
        for name in ["originalTransferMethod", "authenticationDetails.authenticationStepResultDetail", "networkLocationDetails.networkNames", "AuthenticationRequirement"] {
            #expect(SignInFieldCatalog.resolve(name, schema: .beta).warning == nil, "\(name)")
            #expect(SignInFieldCatalog.resolve(name, schema: .v1).warning != nil, "\(name)")
        }
        for schema in SignInSchema.allCases {
            #expect(SignInFieldCatalog.resolve("properties.message", schema: schema).warning == "field 'properties.message' does not exist in the Graph signIn resource (beta or v1.0); a value test on it never matches Graph sign-ins")
        }
    }
}
