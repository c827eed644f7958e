package main

// stagesCommands are the stages and tokens commands, embedded in the command line.
type stagesCommands struct{}
