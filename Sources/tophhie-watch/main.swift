import TophhieCLI

// The executable is the command tree and nothing else.
await TophhieCommandLine.main()
