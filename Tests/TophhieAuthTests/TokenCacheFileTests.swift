import Foundation
import Testing
import TophhieSystem
@testable import TophhieAuth

/// The token cache file as a crash, a careless copy or a damaged disk leave it.
@Suite(.timeLimit(.minutes(20))) struct TokenCacheFileTests {
    static func session() -> CachedSession {
        CachedSession(objectID: "oid", userPrincipalName: "jane@contoso.com", grantedScopes: ["User.Read"], requestedScopes: ["User.Read"],
                      accessToken: "access-secret", accessTokenExpiresAt: Date(timeIntervalSince1970: 1_788_003_600), refreshToken: "refresh-secret",
                      authority: "https://login.microsoftonline.com/t", clientID: "c", signedInAt: Date(timeIntervalSince1970: 1_788_000_000), refreshedAt: nil)
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aDamagedCacheNeedsASignInNotAnOutage() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tokens.json")
        try Data("{\"refreshToken\": \"half".utf8).write(to: file)
        try DurableFile.setPermissions(file.path, 0o600)
        #expect(throws: TophhieAuthError.interactionRequired(reason: "\(file.path) is damaged (run 'tophhie-watch logout' to remove it)")) {
            _ = try TokenCache(file: file).load()
        }
    }

    @Test func aCacheOthersCouldReadIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = TokenCache(file: folder.appendingPathComponent("tokens.json"))
        try cache.save(Self.session())
        try DurableFile.setPermissions(cache.file.path, 0o644)
        #expect(throws: TophhieAuthError.interactionRequired(reason: "\(cache.file.path) could be read by other users (mode 644), so its tokens may be known (run 'tophhie-watch logout' to remove it)")) {
            _ = try cache.load()
        }
    }

    @Test func temporariesOfAKilledSaveAreRemovedOnSaveAndOnLogout() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = TokenCache(file: folder.appendingPathComponent("tokens.json"))
        // pid 2^22+1 is above Linux's pid_max limit, so no live process has it.
        let dead = folder.appendingPathComponent(".tokens.json.tmp-4194305").path
        try Data("refresh-secret".utf8).write(to: URL(fileURLWithPath: dead))
        try cache.save(Self.session())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tokens.json"])

        try Data("refresh-secret".utf8).write(to: URL(fileURLWithPath: dead))
        try cache.remove()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }
}
