import Foundation
import Testing
import TophhieSystem

@Suite(.timeLimit(.minutes(20))) struct BackoffTests {
    @Test func doublesUpToTheCapAndSpreadsByTheDraw() {
        let equalJitter = Backoff(initial: 5, multiplier: 2, maximum: 60, spread: 0.5...1)
        #expect([1, 2, 3, 4, 5].map { equalJitter.delay(afterAttempt: $0, random: 1) } == [5, 10, 20, 40, 60])
        #expect(equalJitter.delay(afterAttempt: 1, random: 0) == 2.5)
        #expect(equalJitter.delay(afterAttempt: 9, random: 0) == 30, "at the cap the draw still spreads clients apart")
        let even = Backoff(initial: 0.5, multiplier: 2, maximum: 60, spread: 0.5...1.5)
        #expect(even.delay(afterAttempt: 3, random: 0.5) == 2)
        #expect(even.delay(afterAttempt: 20, random: 1) == 60, "never past the maximum")
    }

    @Test func drawsOutsideTheUnitRangeAreClamped() {
        let backoff = Backoff(initial: 4, maximum: 60, spread: 0.5...1)
        #expect(backoff.delay(afterAttempt: 1, random: -3) == 2)
        #expect(backoff.delay(afterAttempt: 1, random: 7) == 4)
    }
}

@Suite(.timeLimit(.minutes(20))) struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_764_680_000) // Tue, 02 Dec 2025 12:53:20 GMT

    @Test(arguments: [
        ("7", 7.0), ("2.128", 2.128), (" 1.5 ", 1.5), ("0", 0),
        ("Tue, 02 Dec 2025 12:54:50 GMT", 90), ("Tuesday, 02-Dec-25 12:54:50 GMT", 90), ("Tue Dec  2 12:54:50 2025", 90),
        ("Mon, 01 Dec 2025 00:00:00 GMT", 0),
    ])
    func readsSecondsFractionsAndDates(header: String, seconds: Double) {
        #expect(RetryAfter.seconds(header, now: Self.now) == seconds)
    }

    @Test(arguments: ["", "soon", "-5", "1e3", "0x10", "inf", "nan", "1.", ".5", "1.2.3"])
    func refusesWhatIsNotDeltaSecondsOrADate(header: String) {
        #expect(RetryAfter.seconds(header, now: Self.now) == nil)
    }
}
