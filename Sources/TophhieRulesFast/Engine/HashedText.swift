import TophhieRules
/// A text with its hash worked out once, for the tables a run looks the same text up in many
/// times: a group's key (`RuleTables`: one sign-in is looked up under the same group by every
/// first-seen and travel rule, and hashing the key's text again for each lookup was a fifth of
/// those rules' work), and a sign-in's id (`IDTable`: looked up, stored and forgotten in three
/// tables).
///
/// Equal as its text is equal (the hash is the text's, so the two agree); what is stored keeps
/// the text alone.
struct HashedText: Hashable, Sendable {
    let text: String
    private let hash: Int

    init(_ text: String) {
        self.text = text
        hash = text.hashValue
    }

    static func == (a: HashedText, b: HashedText) -> Bool { a.hash == b.hash && a.text == b.text }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    /// The hash a table asks for, from the one already worked out, mixed with the table's seed
    /// (a multiply and a shift: the stored hash is already SipHash's). Through `hash(into:)` each
    /// look-up fed one word to a new `Hasher` and finalised it, a twentieth of the engine's time.
    func _rawHashValue(seed: Int) -> Int {
        var mixed = UInt64(bitPattern: Int64(hash ^ seed)) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= mixed >> 32
        return Int(Int64(bitPattern: mixed))
    }
}
