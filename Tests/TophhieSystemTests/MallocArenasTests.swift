import Testing
import TophhieSystem

/// The limit reaches glibc: `mallopt` is found by name (Swift's Glibc module lacks it) and
/// accepts it, so the agent's heap is bounded rather than silently left as it was; and so does
/// the request to give free memory back (`malloc_trim`), which replay makes between passes.
@Suite struct MallocArenasTests {
    @Test func glibcTakesTheLimit() {
        #expect(MallocArenas.useOne())
    }

    @Test func glibcIsAskedToGiveFreeMemoryBack() {
        #expect(MallocArenas.releaseFree())
    }
}
