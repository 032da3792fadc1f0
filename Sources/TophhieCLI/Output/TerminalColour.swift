/// ANSI colours for the human output of `status` and `doctor`: on only when standard output
/// is a terminal and `NO_COLOR` is unset (`CommandIO.colourOnOutput`), so pipes and logs get
/// plain text.
struct TerminalColour: Sendable {
    let on: Bool

    init(_ io: CommandIO) { on = io.colourOnOutput }

    func green(_ text: String) -> String { paint(text, "32") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func red(_ text: String) -> String { paint(text, "1;31") }
    func bold(_ text: String) -> String { paint(text, "1") }

    private func paint(_ text: String, _ code: String) -> String {
        on ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
