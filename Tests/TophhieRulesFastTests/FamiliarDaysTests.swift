import Testing
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

/// A place's days take a new one in its place and keep the last 16, as sorting them all again
/// did: for every list of up to 18 distinct days and every day not among them.
@Suite struct FamiliarDaysTests {
    @Test func aNewDayGoesInItsPlace() {
        var generator = SeededGenerator(seed: 3)
        var checked = 0
        for count in 0...18 {
            for _ in 0..<40 {
                var pool = Array(0..<40)
                pool.shuffle(using: &generator)
                let days = Array(pool.prefix(count)).sorted()
                for today in 0..<40 where !days.contains(today) {
                    #expect(EngineRun.days(days, adding: today) == Array((days + [today]).sorted().suffix(16)), "\(days) + \(today)")
                    checked += 1
                }
            }
        }
        #expect(checked > 10_000)
        // Days out of order (a state written by hand) are sorted as before.
        #expect(EngineRun.days([5, 3, 9], adding: 4) == [3, 4, 5, 9])
    }
}
