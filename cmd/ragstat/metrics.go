package main

import "github.com/ragstat/ragstat/report"

type metricsCmd struct{}

func (metricsCmd) Run(e *env) error {
	if err := report.Metrics(e.stdout); err != nil {
		return internal(err)
	}
	return nil
}
