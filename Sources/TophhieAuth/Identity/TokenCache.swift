import Foundation

/// What a sign-in leaves behind: the account, the granted scopes and the tokens.
///
/// `description` never shows a token.
public struct CachedSession: Codable, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user's object id, learned from `GET /me`; the sign-in filter's `userId`.
    public var objectID: String?
    public var userPrincipalName: String?
    /// Scopes the identity platform granted (from the token response's `scope`).
    public var grantedScopes: [String]
    /// Scopes asked for at sign-in, sent again on every refresh.
    public var requestedScopes: [String]
    public var accessToken: String?
    public var accessTokenExpiresAt: Date?
    public var refreshToken: String
    public var authority: String
    public var clientID: String
    public var signedInAt: Date
    public var refreshedAt: Date?

    public var debugDescription: String { description }

    /// No children: `dump` and test failure messages walk the mirror, and must not print tokens.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    public var description: String {
        "CachedSession(user: \(userPrincipalName ?? "unknown"), scopes: \(grantedScopes.joined(separator: " ")), access token expires: \(accessTokenExpiresAt.map { "\($0)" } ?? "none"), tokens: redacted)"
    }
}

/// The token cache file: one JSON file in the state directory, mode 0600 in a 0700 folder,
/// replaced atomically on every write.
public struct TokenCache: Sendable {
    public let file: URL

    public init(file: URL) { self.file = file }

    /// The cached session, or nil when nobody has signed in.
    ///
    /// A damaged file, or one other users could read (its tokens may be known), needs a new
    /// sign-in: that is `interactionRequired`, so the agent says "sign-in needed" at once instead of
    /// "unavailable" an hour later.
    /// - Throws: `TophhieAuthError.interactionRequired` for a damaged or exposed file;
    ///   `TophhieAuthError.tokenCache` when the file exists but cannot be read.
    public func load() throws -> CachedSession? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        if let mode = DurableFile.permissions(of: file.path), mode & 0o077 != 0 {
            throw TophhieAuthError.interactionRequired(reason: "\(file.path) could be read by other users (mode \(String(mode, radix: 8))), so its tokens may be known (run 'tophhie-watch logout' to remove it)")
        }
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw TophhieAuthError.tokenCache("cannot read \(file.path): \(error.localizedDescription)")
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode(CachedSession.self, from: data)
        } catch {
            // The decoder's message can quote file content, so it is not repeated here.
            throw TophhieAuthError.interactionRequired(reason: "\(file.path) is damaged (run 'tophhie-watch logout' to remove it)")
        }
    }

    /// Replaces the cache atomically (temporary file, fsync, rename).
    public func save(_ session: CachedSession) throws {
        let directory = file.deletingLastPathComponent().path
        do {
            try DurableFile.makeDirectory(directory, mode: 0o700)
            try DurableFile.setPermissions(directory, 0o700)
        } catch {
            throw TophhieAuthError.tokenCache("cannot create the state directory \(directory): \(error)")
        }
        // A save killed between write and rename leaves a temporary holding a refresh token.
        DurableFile.removeTemporaries(for: file.path, onlyOfDeadProcesses: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data: Data
        do { data = try encoder.encode(session) } catch {
            throw TophhieAuthError.tokenCache("cannot encode the session")
        }
        do { try DurableFile.replace(file.path, with: Array(data), mode: 0o600) } catch {
            throw TophhieAuthError.tokenCache("\(error)")
        }
    }

    /// Deletes the cache and any temporary copy a killed save left behind; no error when there is none.
    public func remove() throws {
        DurableFile.removeTemporaries(for: file.path, onlyOfDeadProcesses: false)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        do { try FileManager.default.removeItem(at: file) } catch {
            throw TophhieAuthError.tokenCache("cannot remove \(file.path): \(error.localizedDescription)")
        }
    }

    /// When the file was last replaced, nil when there is none.
    public var modificationDate: Date? {
        (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
    }

    /// The file's permission bits, for `status` and tests.
    public var fileMode: UInt32? { DurableFile.permissions(of: file.path).map { UInt32($0) } }
}
