#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Runs a program with bytes on its standard input and waits for it, killing it at a deadline.
///
/// For notifiers that hand a message to a local program (sendmail). The program is started with
/// `posix_spawn` (no shell: the arguments go as they are), in a process group of its own so a
/// program that forks is killed whole. Its standard output and error are read together, at most
/// `outputLimit` bytes kept. `run` blocks its thread: call it through `BlockingWork`, which
/// `runAsync` does.
public enum Subprocess {
    /// How the program ended.
    public struct Outcome: Sendable, Equatable {
        public enum Ending: Sendable, Equatable {
            /// It exited with this status.
            case exited(Int32)
            /// A signal ended it (not ours).
            case signalled(Int32)
            /// It was still running at the deadline and was killed.
            case timedOut
        }

        public var ending: Ending
        /// What it wrote to standard output and error, cut at the output limit.
        public var output: Data

        public init(ending: Ending, output: Data) {
            self.ending = ending
            self.output = output
        }
    }

    /// Why the program could not be started.
    public struct LaunchError: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var code: Int32
        public init(path: String, code: Int32) {
            self.path = path
            self.code = code
        }
        public var description: String { "cannot run \(path): \(systemErrorMessage(code))" }
    }

    /// Adds glibc's (2.34+) `posix_spawn_file_actions_addclosefrom_np(actions, 3)`, which Swift's
    /// Glibc module does not export: found by name.
    /// - Returns: whether it was there and took the action.
    private static func closeAllFrom3(_ actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return false }
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3) == 0
    }

    /// Whether `path` names a regular file this process may execute.
    /// - Returns: nil when it can be run, else why not in words.
    public static func whyNotExecutable(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "\(path) is not an absolute path" }
        var info = stat()
        guard stat(path, &info) == 0 else { return "\(path): \(systemErrorMessage(errno))" }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "\(path) is not a regular file" }
        // The mode first: root's access(X_OK) passes for a file nobody may execute.
        guard info.st_mode & 0o111 != 0 else { return "\(path) is not executable (mode \(String(info.st_mode & 0o7777, radix: 8)))" }
        guard access(path, X_OK) == 0 else { return "\(path) is not executable (\(systemErrorMessage(errno)))" }
        return nil
    }

    /// Runs `path` with `arguments` on a thread of `BlockingWork.shared`.
    public static func runAsync(_ path: String, arguments: [String], input: Data, timeout: Double, outputLimit: Int = 4096) async throws -> Outcome {
        try await BlockingWork.shared.run { try run(path, arguments: arguments, input: input, timeout: timeout, outputLimit: outputLimit) }
    }

    /// Runs `path` with `arguments` (argv[0] is `path`), writes `input` to it, closes its input and
    /// waits until it exits or `timeout` seconds pass. It blocks its thread: async code calls
    /// `runAsync`, which runs it on the blocking-work pool.
    /// - Throws: `LaunchError` when it cannot be started.
    static func run(_ path: String, arguments: [String], input: Data, timeout: Double, outputLimit: Int = 4096) throws -> Outcome {
        let deadline = monotonicSeconds() + max(0, timeout)
        // A program that exits without reading its input must give EPIPE here, not a SIGPIPE
        // that ends this process (the child gets the default action back below).
        StandardStream.ignoreBrokenPipes()
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        // pipe2 is not exported to Swift; close-on-exec is set right after (the child keeps only
        // the ends dup2'ed onto 0, 1 and 2).
        guard pipe(&inPipe) == 0 else { throw LaunchError(path: path, code: errno) }
        guard pipe(&outPipe) == 0 else {
            let code = errno
            close(inPipe[0]); close(inPipe[1])
            throw LaunchError(path: path, code: code)
        }
        for fd in inPipe + outPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 2)
        // Nothing else of this process reaches the program: a descriptor opened without
        // close-on-exec (a lock file, a file being written) would otherwise live on in it, and
        // a program written meanwhile could not be run while it does (ETXTBSY). glibc's
        // `closefrom` action closes them all in the child, whenever they were opened; a list
        // taken here misses one another thread opens before the spawn.
        if !Self.closeAllFrom3(&actions) {
            for fd in inheritedDescriptors() { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGHUP)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        var spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        // ETXTBSY: another thread's child still holds the program open for writing (it was
        // just written, and a fork elsewhere inherited the descriptor); it closes at exec.
        // EBADF: a descriptor listed to close was closed by another thread meanwhile.
        var tries = 0
        while (spawned == ETXTBSY || spawned == EBADF) && tries < 50 {
            usleep(10_000)
            tries += 1
            spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        }
        close(inPipe[0])
        close(outPipe[1])
        guard spawned == 0 else {
            close(inPipe[1]); close(outPipe[0])
            throw LaunchError(path: path, code: spawned)
        }
        // Feed the input and drain the output together, so neither side waits on a full pipe.
        _ = fcntl(inPipe[1], F_SETFL, fcntl(inPipe[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(outPipe[0], F_SETFL, fcntl(outPipe[0], F_GETFL) | O_NONBLOCK)
        let bytes = [UInt8](input)
        var written = 0
        var inputFD: Int32 = inPipe[1], outputFD: Int32 = outPipe[0]
        if bytes.isEmpty { close(inputFD); inputFD = -1 }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timedOut = false
        while inputFD >= 0 || outputFD >= 0 {
            let left = deadline - monotonicSeconds()
            if left <= 0 { timedOut = true; break }
            var fds: [pollfd] = []
            if inputFD >= 0 { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
            if outputFD >= 0 { fds.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, 1000).rounded(.up)))
            if ready < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                if entry.fd == inputFD {
                    let count = bytes.withUnsafeBytes { write(inputFD, $0.baseAddress! + written, bytes.count - written) }
                    if count > 0 { written += count }
                    if count < 0 && errno != EAGAIN && errno != EINTR || written >= bytes.count {
                        // EPIPE: it stopped reading; its exit status says why.
                        close(inputFD); inputFD = -1
                    }
                } else if entry.fd == outputFD {
                    let count = read(outputFD, &buffer, buffer.count)
                    if count > 0 {
                        if output.count < outputLimit { output.append(contentsOf: buffer[..<min(count, outputLimit - output.count)]) }
                    } else if count == 0 || errno != EAGAIN && errno != EINTR {
                        close(outputFD); outputFD = -1
                    }
                }
            }
        }
        if inputFD >= 0 { close(inputFD) }
        if outputFD >= 0 { close(outputFD) }
        // Output closed: the program is exiting, or it closed its output and still runs.
        var status: Int32 = 0
        while !timedOut {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return Outcome(ending: ending(status), output: output) }
            if result < 0 && errno != EINTR { return Outcome(ending: .exited(-1), output: output) }
            if monotonicSeconds() >= deadline { timedOut = true; break }
            usleep(5_000)
        }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Outcome(ending: .timedOut, output: output)
    }

    /// This process's descriptors above 2 without close-on-exec, from `/proc/self/fd`.
    private static func inheritedDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var found: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { found.append(fd) }
        }
        return found
    }

    private static func ending(_ status: Int32) -> Outcome.Ending {
        let signal = status & 0x7F
        if signal == 0 { return .exited((status >> 8) & 0xFF) }
        return .signalled(signal)
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
