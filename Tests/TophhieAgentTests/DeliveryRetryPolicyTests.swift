import Testing
@testable import TophhieAgent

@Suite(.timeLimit(.minutes(20))) struct DeliveryRetryPolicyTests {
    static let down = NotifierError.transient("receiver down")

    @Test func exponentialBackoffWithoutJitterAtMidpoint() {
        var policy = DeliveryRetryPolicy(settings: .init(maxAttemptsPerCycle: 10, maxWaitPerCycle: .seconds(1000)))
        var delays: [Duration] = []
        for _ in 0..<8 {
            guard case .retry(let delay) = policy.decide(after: Self.down, age: .zero, random: 0.5) else {
                Issue.record("expected a retry"); return
            }
            delays.append(delay)
        }
        #expect(delays == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60)])
        #expect(policy.waited == .milliseconds(123_500))
    }

    @Test(arguments: [(0.0, Duration.milliseconds(1000)), (0.25, .milliseconds(1500)), (0.5, .seconds(2)), (0.999, .milliseconds(2998))])
    func jitterSpreadsFiftyPercent(random: Double, expected: Duration) {
        let policy = DeliveryRetryPolicy()
        let delay = policy.backoff(attempt: 3, random: random)
        #expect(abs(delay / .seconds(1) - expected / .seconds(1)) < 0.001, "\(delay)")
    }

    @Test func permanentFailureDeadLettersAtOnce() {
        var policy = DeliveryRetryPolicy()
        #expect(policy.decide(after: .permanent("HTTP 404"), age: .zero, random: 0.5) == .deadLetter(reason: "HTTP 404"))
    }

    @Test func retryAfterReplacesTheBackoff() {
        var policy = DeliveryRetryPolicy()
        #expect(policy.decide(after: .transient("429", retryAfter: .seconds(7)), age: .zero, random: 0.9) == .retry(after: .seconds(7)))
    }

    @Test func retryAfterBeyondTheCycleDefers() {
        var policy = DeliveryRetryPolicy(settings: .init(maxWaitPerCycle: .seconds(120)))
        #expect(policy.decide(after: .transient("429", retryAfter: .seconds(600)), age: .zero, random: 0.5) == .deferToNextCycle(notBefore: .seconds(600)))
    }

    @Test func attemptsPerCycleAreBounded() {
        var policy = DeliveryRetryPolicy(settings: .init(maxAttemptsPerCycle: 3))
        #expect(policy.decide(after: Self.down, age: .zero, random: 0.5) == .retry(after: .milliseconds(500)))
        #expect(policy.decide(after: Self.down, age: .zero, random: 0.5) == .retry(after: .seconds(1)))
        #expect(policy.decide(after: Self.down, age: .zero, random: 0.5) == .deferToNextCycle(notBefore: nil))
        policy.nextAlert()
        #expect(policy.attempts == 0)
        #expect(policy.decide(after: Self.down, age: .zero, random: 0.5) == .retry(after: .milliseconds(500)))
    }

    @Test func waitingBudgetIsSharedAcrossAlerts() {
        var policy = DeliveryRetryPolicy(settings: .init(maxWaitPerCycle: .seconds(10)))
        #expect(policy.decide(after: .transient("x", retryAfter: .seconds(6)), age: .zero, random: 0.5) == .retry(after: .seconds(6)))
        policy.nextAlert()
        #expect(policy.decide(after: .transient("x", retryAfter: .seconds(6)), age: .zero, random: 0.5) == .deferToNextCycle(notBefore: .seconds(6)))
    }

    @Test func tooOldIsDeadLettered() {
        var policy = DeliveryRetryPolicy(settings: .init(maxAge: .seconds(3 * 86_400)))
        #expect(policy.decide(after: Self.down, age: .seconds(3 * 86_400), random: 0.5)
                == .deadLetter(reason: "still failing after 3 days in the outbox: receiver down"))
    }
}
