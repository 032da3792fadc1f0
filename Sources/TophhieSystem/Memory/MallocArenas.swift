#if canImport(Glibc)
import Glibc
#endif

/// How many heaps glibc's malloc keeps.
///
/// By default it gives each thread that allocates a heap of its own, up to eight per core, and
/// memory freed in one is not reused by another: a first poll's pages are parsed on one pool
/// thread, its sign-ins judged on another, its state written on a third, and each heap keeps
/// its high-water mark. The agent does little at once, so one heap costs it nothing and bounds
/// its size (the first poll of the documented tenant: 120 MB with the default, 80 MB with one;
/// `benchmarks/poll-budget.sh`).
///
/// A command that reads a file on several threads at once (replay, `rules match`, report) keeps
/// glibc's heap per thread instead: with one, its reader, engine and writer took the heap's lock
/// from one another on nearly every allocation and free (30,000 futex calls in an alert-heavy
/// replay, which ran 1.6x as long as with a heap each).
public enum MallocArenas {
    /// Limits malloc to one heap, unless `MALLOC_ARENA_MAX` says otherwise. Call it first in
    /// `main`, before another thread allocates: glibc fixes the limit when it first needs a
    /// second heap.
    /// - Returns: whether the limit was set.
    @discardableResult
    public static func useOne() -> Bool {
        #if canImport(Glibc)
        guard getenv("MALLOC_ARENA_MAX") == nil else { return false }
        // `mallopt` is not in Swift's Glibc module; it is in every glibc.
        guard let symbol = dlsym(nil, "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8  // M_ARENA_MAX, malloc.h
        return unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, 1) == 1
        #else
        return false
        #endif
    }

    /// Gives the memory every heap holds free back to the system (`malloc_trim`): between a
    /// file's passes, so that what the first freed, kept by its threads' heaps, is not still
    /// counted while the second's threads fill heaps of their own.
    /// - Returns: whether glibc was asked.
    @discardableResult
    public static func releaseFree() -> Bool {
        #if canImport(Glibc)
        // Not in Swift's Glibc module either.
        guard let symbol = dlsym(nil, "malloc_trim") else { return false }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        return true
        #else
        return false
        #endif
    }
}
