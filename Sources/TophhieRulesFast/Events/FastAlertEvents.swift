import Foundation
import TophhieJSON
import TophhieRules

/// An alert's event lines as the fast engine builds them: read by slot, "City, Country" and
/// "Browser on OS" taken from memos when their parts were joined lately. The same lines as
/// `AlertFactory.alertEvent` reads by path.
enum FastAlertEvents {
    /// The display paths interned once, so building an event line reads the event by slot.
    private static let slots = AlertFactory.displayPaths.map { FieldSlot.intern(path: $0) }

    static func alertEvent(_ event: any FastEvent) -> AlertEvent {
        var places: JoinedTextMemo?, devices: JoinedTextMemo?
        return alertEvent(event, places: &places, devices: &devices)
    }

    static func alertEvent(_ event: any FastEvent, places: inout JoinedTextMemo?, devices: inout JoinedTextMemo?) -> AlertEvent {
        func text(_ i: Int) -> String? { event.text(slot: slots[i]) }
        return AlertEvent(id: event.eventID, time: event.eventTime, errorCode: AlertFactory.errorCode(event.field(slot: slots[0])),
                          app: nonEmpty(text(1)), ipAddress: nonEmpty(text(2)),
                          location: joined(text(3), text(4), by: ", ", memo: &places),
                          device: joined(text(5), text(6), by: " on ", memo: &devices))
    }

    static func alertEvent(_ stored: FastState.StoredEvent) -> AlertEvent {
        let paths = AlertFactory.displayPaths
        return AlertFactory.alertEvent(id: stored.id, time: stored.time, errorCode: stored.values[paths[0]].flatMap { Int64($0) },
                                       app: stored.values[paths[1]], ipAddress: stored.values[paths[2]], city: stored.values[paths[3]],
                                       country: stored.values[paths[4]], browser: stored.values[paths[5]], os: stored.values[paths[6]])
    }

    /// Takes its text over: handing back a borrowed one copied it (a retain and a release).
    private static func nonEmpty(_ s: consuming String?) -> String? { s?.isEmpty == false ? s : nil }

    /// `AlertFactory.joined`, from `memo` when it has one.
    private static func joined(_ first: consuming String?, _ second: consuming String?, by separator: String, memo: inout JoinedTextMemo?) -> String? {
        switch (nonEmpty(first), nonEmpty(second)) {
        case let (a?, b?): memo?.value(a, b) { concatenation($0, separator, $1) } ?? concatenation(a, separator, b)
        case let (a?, nil): a
        case let (nil, b?): b
        case (nil, nil): nil
        }
    }

    /// `a + separator + b`, its bytes copied once into the result's buffer: the two `+`
    /// made a string between and grew it, most of the cost of a located sign-in's line (which
    /// travel builds for every one).
    private static func concatenation(_ a: String, _ separator: String, _ b: String) -> String {
        var a = a, separator = separator, b = b
        return a.withUTF8 { first in
            separator.withUTF8 { middle in
                b.withUTF8 { last in
                    String(unsafeUninitializedCapacity: first.count + middle.count + last.count) { buffer in
                        var at = 0
                        func put(_ part: UnsafeBufferPointer<UInt8>) {
                            guard let start = part.baseAddress, !part.isEmpty else { return }
                            (buffer.baseAddress! + at).initialize(from: start, count: part.count)
                            at += part.count
                        }
                        put(first)
                        put(middle)
                        put(last)
                        return at
                    }
                }
            }
        }
    }
}
