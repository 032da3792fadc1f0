/// The release this binary is, the one version string: `--version`, `version`, the User-Agent
/// of Graph calls and webhooks; `scripts/package.sh` names the archive after it.
public enum ProductVersion {
    public static let number = "0.9.0"
    /// What `--version` prints.
    public static var line: String { "tophhie-watch \(number)\n" }
}
