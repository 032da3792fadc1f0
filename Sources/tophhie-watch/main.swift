import TophhieCLI
import TophhieSystem

// The executable is the command tree and nothing else, but for malloc's one heap, which must be
// asked for before any other thread allocates (`MallocArenas`).
MallocArenas.useOne()
await TophhieCommandLine.main()
