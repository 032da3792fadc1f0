import Testing
import TophhieRegex

/// The values that stall a backtracking engine; here they must simply give the right answer.
@Suite struct LongValueTests {
    static let megabyte = 1_000_000

    @Test func nestedQuantifierOnOneMegabyteFails() throws {
        let regex = try LinearRegex("(a+)+$")
        #expect(!regex.matches(String(repeating: "a", count: Self.megabyte) + "!"))
        #expect(regex.matches(String(repeating: "a", count: Self.megabyte)))
    }

    @Test func alternationLoopOverOneMegabyte() throws {
        let regex = try LinearRegex("^(a|b)*$")
        let value = String(repeating: "ab", count: Self.megabyte / 2)
        #expect(regex.matches(value))
        #expect(!regex.matches(value + "c"))
    }

    @Test func dotStarSequenceOverOneMegabyte() throws {
        let regex = try LinearRegex(".*python.*requests.*")
        let filler = String(repeating: "x", count: Self.megabyte / 2)
        #expect(regex.matches("python" + filler + "requests" + filler))
        #expect(!regex.matches("python" + filler + "request" + filler))
        #expect(!regex.matches(filler + "requests python" + filler))
    }

    @Test func wideCharactersAreNotSplit() throws {
        // `.` consumes whole scalars, so four dots fit a four-scalar value of multi-byte characters exactly.
        let regex = try LinearRegex("^....$")
        #expect(regex.matches(String(repeating: "日本🙂é", count: 1)))
        #expect(!regex.matches(String(repeating: "日本🙂é", count: 250_000) + "x"))
    }
}
