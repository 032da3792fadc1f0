import Foundation
import LoopbackHTTP
import Testing
import TophhieRules
import TophhieSystem
@testable import TophhieAgent

/// The delivery budget is a deadline: a receiver that accepts and never answers costs a drain
/// at most its budget, each attempt waiting the smaller of its own timeout and what is left.
@Suite(.timeLimit(.minutes(20))) struct DeliveryDeadlineTests {
    @Test func aReceiverThatNeverAnswersCostsAtMostTheBudget() async throws {
        let dir = TemporaryStateDirectory()
        // Accepts, then answers an hour later: past every deadline.
        let (receiver, received) = inProcessReceiver { _, _ in HTTPResponse.empty(200).delayed(by: 3600) }
        let clock = receiver.clock
        let started = clock.now()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(contentsOf: (0..<3).map { NotifierTestAlerts.alert(id: "h-\($0)") }, at: started)
        let notifier = try webhook(receiver, timeout: .seconds(30), now: { clock.now() })
        let delivery = OutboxDelivery(store: store, notifier: notifier, now: { clock.now() },
                                      sleep: { try await clock.sleep(seconds: DeliveryRetryPolicy.seconds($0)) }, random: { 0.5 }, budget: 60)
        let report = try await delivery.drain()
        let spent = clock.now().timeIntervalSince(started)
        #expect(spent <= 60, "spent \(spent) s of a 60 s budget")
        #expect(report.budgetSpent)
        #expect(report.delivered.isEmpty && report.remaining == 3, "nothing lost: all three wait for the next cycle")
        #expect(report.stoppedAt?.id == "h-0")
        // Two whole attempts (30 s each would be 60 s with the backoff between): the second is
        // cut to what was left of the budget.
        let attempts = await received.count
        #expect(attempts == 2, "\(attempts) attempts")
        #expect(report.stoppedAt?.reason.hasPrefix("webhook http://127.0.0.1:9/…: no answer within 29.") == true, "\(report.stoppedAt?.reason ?? "")")
    }

    @Test func theNoticesAfterTheBudgetGetFiveSeconds() async throws {
        let dir = TemporaryStateDirectory()
        let (receiver, _) = inProcessReceiver { _, _ in HTTPResponse.empty(200).delayed(by: 3600) }
        let clock = receiver.clock
        let started = clock.now()
        let notifier = try webhook(receiver, timeout: .seconds(30), now: { clock.now() })
        let dispatch = try OutboxDispatch(stateDirectory: URL(fileURLWithPath: dir.path), notifiers: [(notifier, NotifierRoute())], now: { clock.now() },
                                          sleep: { try await clock.sleep(seconds: DeliveryRetryPolicy.seconds($0)) }, random: { 0.5 }, budget: 60)
        try await dispatch.append([NotifierTestAlerts.alert(id: "n-0")])
        _ = await dispatch.deliverPending(budget: PollCycle.noticeDeliveryBudget)
        #expect(clock.now().timeIntervalSince(started) <= 5)
    }
}
