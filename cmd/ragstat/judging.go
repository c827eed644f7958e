package main

// judgingCommands are the pool, baseline and judge (issue: judging) commands, embedded in the command line.
type judgingCommands struct{}
