package main

import (
	_ "github.com/alecthomas/kong"
	_ "github.com/dlclark/regexp2"
	_ "github.com/pkoukk/tiktoken-go"
	_ "github.com/pkoukk/tiktoken-go-loader"
	_ "golang.org/x/term"
	_ "golang.org/x/text/unicode/norm"
	_ "gonum.org/v1/gonum/stat/distuv"
	_ "pgregory.net/rapid"
)

func main() {}
