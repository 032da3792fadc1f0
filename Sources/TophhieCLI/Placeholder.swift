import Foundation

/// The command tree's entry point.
public enum TophhieCommandLine {
    public static func main() async {
        FileHandle.standardError.write(Data("tophhie-watch: not built yet\n".utf8))
        exit(1)
    }
}
