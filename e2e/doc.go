// Package e2e drives ragstat against real clients nobody here wrote: its
// web pages (the HTML report, the assessment app) in a headless Chromium,
// and `ragstat collect` fed by the example pipelines of ../examples, each
// an npm project installed from its lock file: LangChain.js traced with
// OpenInference's instrumentation, LlamaIndex.TS traced by OpenLLMetry and
// LangChain.js traced by the Langfuse SDK, exported through OpenTelemetry's
// OTLP exporters (HTTP JSON and protobuf, gRPC) and Langfuse's own; and by
// Go services traced through OpenTelemetry's Go OTLP exporter, with package
// openinference and under the GenAI conventions (a pipeline, and an agent
// that searches three times). It is a module of its own so these drivers
// stay out of the library's dependencies.
package e2e
