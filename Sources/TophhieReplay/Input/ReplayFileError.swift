/// A replay file that cannot be read, or holds something that is not a sign-in: the message
/// names the file and what is wrong with it.
public struct ReplayFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
