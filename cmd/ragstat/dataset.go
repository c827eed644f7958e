package main

// datasetCommands are the remap and split commands, embedded in the command line.
type datasetCommands struct{}
