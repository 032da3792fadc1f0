import Foundation

/// Where the config file is looked for, in order, and which one was found: `--config`, then
/// `$TOPHHIE_CONFIG`, then `$XDG_CONFIG_HOME/tophhie-watch/config.yml` (`~/.config/…`), then
/// `/etc/tophhie-watch/config.yml`, then `tophhie-watch.yml` in the state directory (where
/// earlier versions looked). An explicit file is used whether or not it exists, so a mistyped
/// path is an error rather than a silent fallback.
public struct ConfigFileSearch: Sendable, Equatable {
    /// The file to read; nil when none was found.
    public private(set) var foundPath: String?
    /// What chose it: `--config`, `$TOPHHIE_CONFIG`, `~/.config`, …
    public private(set) var chosenBy: String = ""
    /// The files looked for, in order, for a message when none was found.
    public private(set) var looked: [String] = []

    /// The system-wide file the installer writes.
    public static let systemFile = "/etc/tophhie-watch/config.yml"

    /// - Parameters:
    ///   - explicit: `--config`'s value.
    ///   - stateDirectory: the state directory in use, for the earlier versions' place.
    ///   - systemFile: the system-wide file (tests point it elsewhere).
    ///   - exists: whether a file is there.
    public init(explicit: String?, environment: [String: String], stateDirectory: URL, systemFile: String = ConfigFileSearch.systemFile,
                exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) {
        if let explicit {
            foundPath = explicit
            chosenBy = "--config"
            return
        }
        if let variable = environment["TOPHHIE_CONFIG"], !variable.isEmpty {
            foundPath = variable
            chosenBy = "$TOPHHIE_CONFIG"
            return
        }
        var candidates: [(String, String)] = []
        // Only a home the environment names: a test's or a service's environment without one
        // must not pick up the files of whoever runs it.
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            candidates.append((xdg + "/tophhie-watch/config.yml", "$XDG_CONFIG_HOME"))
        } else if let home = environment["HOME"], !home.isEmpty {
            candidates.append((home + "/.config/tophhie-watch/config.yml", "~/.config"))
        }
        candidates.append((systemFile, "the system-wide place"))
        candidates.append((stateDirectory.appendingPathComponent("tophhie-watch.yml").path, "the state directory"))
        for (path, why) in candidates {
            looked.append(path)
            if exists(path) {
                foundPath = path
                chosenBy = why
                return
            }
        }
    }

    /// One line for `status` and messages: the file and why, or where none was found.
    public var description: String {
        if let foundPath { return "\(foundPath) (\(chosenBy))" }
        return "none found (looked for \(looked.joined(separator: ", ")))"
    }
}
