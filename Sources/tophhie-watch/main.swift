import TophhieCLI
import TophhieSystem

// The executable is the command tree and nothing else, but for malloc's heaps, which must be
// chosen before any other thread allocates (`MallocArenas`): one for the agent, one per thread
// for a command that reads a file on several threads at once.
if !TophhieCommandLine.readsOnSeveralThreads(Array(CommandLine.arguments.dropFirst())) {
    MallocArenas.useOne()
}
await TophhieCommandLine.main()
