import Testing
@testable import TophhieAuth

/// Tenant and client ids are checked when read: GUIDs, domain names, the well-known tenants.
@Suite struct DirectoryIdentifiersTests {
    @Test(arguments: ["72f988bf-86f1-41af-91ab-2d7cd011db47", "contoso.onmicrosoft.com", "fabrikam.com", "xn--bcher-kva.example", "organizations", "common", "consumers"])
    func tenantsThatAre(_ tenant: String) {
        #expect(DirectoryIdentifiers.tenantProblem(tenant) == nil)
    }

    @Test(arguments: ["", "t", "not a guid", "../../evil", "contoso", "-contoso.com", "contoso-.com", "contoso..com", "10.0.0.1", "contoso.com/", "72f988bf86f141af91ab2d7cd011db47", "72f988bf-86f1-41af-91ab-2d7cd011db4g", "exämple.com"])
    func tenantsThatAreNot(_ tenant: String) {
        #expect(DirectoryIdentifiers.tenantProblem(tenant) == "the tenant '\(tenant)' is neither a tenant id (a GUID such as 72f988bf-86f1-41af-91ab-2d7cd011db47) nor a domain name (contoso.onmicrosoft.com)")
    }

    @Test func clientIDsAreGUIDs() {
        #expect(DirectoryIdentifiers.clientProblem("5C3B2A10-1D2E-4F3A-8B9C-0D1E2F3A4B5C") == nil)
        #expect(DirectoryIdentifiers.clientProblem("contoso.onmicrosoft.com") != nil)
        #expect(DirectoryIdentifiers.clientProblem("5c3b2a10-1d2e-4f3a-8b9c") != nil)
        #expect(DirectoryIdentifiers.isDomainName(String(repeating: "a", count: 64) + ".com") == false)
    }
}
