/// A group's key with its hash worked out once, for the tables a run holds by group
/// (`RuleTables`): one sign-in is looked up under the same group by every first-seen and travel
/// rule, and hashing the key's text again for each lookup was a fifth of those rules' work.
///
/// Equal as its text is equal (the hash is the text's, so the two agree); the state keeps the
/// text alone.
struct GroupKey: Hashable {
    let text: String
    private let hash: Int

    init(_ text: String) {
        self.text = text
        hash = text.hashValue
    }

    static func == (a: GroupKey, b: GroupKey) -> Bool { a.hash == b.hash && a.text == b.text }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
