package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/ragstat/ragstat/internal/outfile"
)

// endingSignals end ragstat, which first removes its temporary outputs
// (outfile.RemoveTemporary) so that an interrupted command leaves no
// hidden .NAME.PID-RANDOM.tmp beside its destination. A command that stops
// on some of them itself (a server, intervene) owns those while it runs
// (ownSignals): it then ends as it chooses, committing or aborting its
// outputs.
var endingSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

var owned struct {
	mu   sync.Mutex
	sigs map[os.Signal]int
}

// ownSignals leaves sigs to the command until release is called.
func ownSignals(sigs ...os.Signal) (release func()) {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	if owned.sigs == nil {
		owned.sigs = make(map[os.Signal]int)
	}
	for _, s := range sigs {
		owned.sigs[s]++
	}
	return sync.OnceFunc(func() {
		owned.mu.Lock()
		defer owned.mu.Unlock()
		for _, s := range sigs {
			owned.sigs[s]--
		}
	})
}

// removeOnSignal handles endingSignals for the rest of the process: one
// that no command owns removes the temporary outputs, then ends the
// process by the same signal, as if it had not been caught.
func removeOnSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, endingSignals...)
	go func() {
		for s := range c {
			owned.mu.Lock()
			mine := owned.sigs[s] > 0
			owned.mu.Unlock()
			if mine {
				continue
			}
			outfile.RemoveTemporary()
			signal.Reset(s)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(s)
			}
			time.Sleep(time.Second) // the signal, no longer caught, ends the process
			os.Exit(exitInternal)
		}
	}()
}
