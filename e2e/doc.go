// Package e2e drives ragstat against real clients nobody here wrote: its
// web pages (the HTML report, the assessment app) in a headless Chromium,
// and `ragstat collect` fed by a LangChain.js pipeline traced with
// OpenInference's instrumentation and OpenTelemetry's OTLP exporters (the
// npm project in testdata/langchain, installed from its lock file). It is a
// module of its own so these drivers stay out of the library's
// dependencies.
package e2e
