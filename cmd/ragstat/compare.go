package main

// compareCommands are the compare and report commands, embedded in the command line.
type compareCommands struct{}
