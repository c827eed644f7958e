// Package e2e drives ragstat's web pages (the HTML report, the assessment
// app) in a real headless Chromium. It is a module of its own so the
// browser driver stays out of the library's dependencies.
package e2e
