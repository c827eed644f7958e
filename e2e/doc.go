// Package e2e drives ragstat against real clients nobody here wrote: its
// web pages (the HTML report, the assessment app) in a headless Chromium,
// and `ragstat collect` fed by a LangChain.js pipeline traced with
// OpenInference's instrumentation and OpenTelemetry's OTLP exporters (the
// npm project in testdata/langchain, installed from its lock file) and by
// a Go service traced with package openinference through OpenTelemetry's
// Go OTLP exporter. It is a
// module of its own so these drivers stay out of the library's
// dependencies.
package e2e
