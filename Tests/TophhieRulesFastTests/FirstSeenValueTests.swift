import Testing
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

/// A first-seen value's key written in one pass is the key the texts joined, stripped of their
/// versions and folded give (what baselines held before), for every shape of ASCII text.
@Suite struct FirstSeenValueTests {
    static let texts = [
        "Windows", "Windows 10", "Edge 120.0.2210", "iOS 17.2", "Ios 17.4.1", "MacOs", "Chrome 125.0.0",
        "  Leading and trailing  ", "double  space", "10 starts with a version", "1.2.3", "Mixed CASE 7b Word",
        "x", "PT", "Safari 17.2 (Mobile)", "a 1 b 2 c 3",
    ]

    /// What the key was before: the parts (stripped when versions are ignored) joined and folded.
    static func reference(_ parts: [String], ignoringVersions: Bool) -> String {
        parts.map { ignoringVersions ? EngineRun.withoutVersions($0) : $0 }.joined(separator: " / ").lowercased()
    }

    @Test func asciiKeysAreTheTextsJoinedStrippedAndFolded() {
        for first in Self.texts {
            for second in Self.texts {
                for ignoring in [false, true] {
                    for parts in [[first], [first, second], [first, second, first]] {
                        let key = FirstSeenValue.asciiKey(parts + ["unread"], count: parts.count, ignoringVersions: ignoring)
                        #expect(key.map { Array($0.utf8) } == Array(Self.reference(parts, ignoringVersions: ignoring).utf8),
                                "\(parts) ignoring versions: \(ignoring)")
                    }
                }
            }
        }
    }

    /// Text that is not ASCII, kept or dropped as a version, is left to the Unicode path (its
    /// spaces and digits are characters there); so is a key longer than the buffer.
    @Test func textThatIsNotASCIIOrTooLongIsLeftToTheUnicodePath() {
        #expect(FirstSeenValue.asciiKey(["Café 2"], count: 1, ignoringVersions: true) == nil)
        #expect(FirstSeenValue.asciiKey(["Edge", "2é"], count: 2, ignoringVersions: true) == nil)
        #expect(FirstSeenValue.asciiKey(["Ünïcode"], count: 1, ignoringVersions: false) == nil)
        let long = String(repeating: "a", count: FirstSeenValue.longest)
        #expect(FirstSeenValue.asciiKey([long], count: 1, ignoringVersions: false) == long)
        #expect(FirstSeenValue.asciiKey([long, "b"], count: 2, ignoringVersions: false) == nil)
    }
}
