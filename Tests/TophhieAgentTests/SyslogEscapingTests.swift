import Foundation
import Testing
@testable import TophhieAgent

@Suite(.timeLimit(.minutes(20))) struct SyslogEscapingTests {
    /// A quote or bracket followed by a combining mark is one Character but still a bare byte on
    /// the wire; it must be escaped all the same.
    @Test func combiningMarksCannotHideAQuoteOrBracket() {
        let hostile = "x\"\u{301}]\u{301} [fake@1 level=\"low\"\u{301}"
        #expect(SyslogMessage.paramValue(hostile) == "x\\\"\u{301}\\]\u{301} [fake@1 level=\\\"low\\\"\u{301}")
    }
}

@Suite(.timeLimit(.minutes(20))) struct MarkdownEscapingTests {
    @Test func linksInSignInTextDoNotRenderInTeamsOrDiscord() {
        let escaped = WebhookPreset.markdownEscape("OfficeHome [Verify your account](https://evil.example) *now*")
        #expect(escaped == #"OfficeHome \[Verify your account\]\(https://evil.example\) \*now\*"#)
    }
}
