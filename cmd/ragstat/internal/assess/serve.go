package assess

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/localhttp"
)

// RunOptions say where and how `ragstat judge` serves.
type RunOptions struct {
	Addr  string    // HOST:PORT; empty means 127.0.0.1 on a free port
	Token string    // access token; generated when listening off loopback without one
	Out   io.Writer // where the URL is printed
	Log   *log.Logger
	Now   func() time.Time
}

// Run listens, prints the URL to open (with the token when there is one)
// and serves until ctx ends.
func Run(ctx context.Context, store Store, task *Task, opt RunOptions) error {
	addr := opt.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	generated := false
	if !localhttp.IsLoopback(ln.Addr()) && opt.Token == "" {
		if opt.Token, err = localhttp.RandomToken(); err != nil {
			ln.Close()
			return err
		}
		generated = true
	}
	s, err := New(ln, Config{Store: store, Task: task, Token: opt.Token, Now: opt.Now, Log: opt.Log})
	if err != nil {
		ln.Close()
		return err
	}
	if !localhttp.IsLoopback(ln.Addr()) {
		fmt.Fprintf(opt.Out, "Listening on %s, off the loopback interface: every request needs the access token.\n", ln.Addr())
		if generated {
			fmt.Fprintf(opt.Out, "Generated access token: %s (give --token to choose one)\n", opt.Token)
		}
		fmt.Fprintln(opt.Out, "Plain HTTP: use it on a network you trust, or through an SSH tunnel.")
	}
	fmt.Fprintf(opt.Out, "%d passages to judge, grades %s. Open %s\n", len(task.Entries), store.Scale(), s.URL())
	return s.Serve(ctx)
}
