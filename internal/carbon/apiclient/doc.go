// Package apiclient is the HTTP behaviour the carbon-intensity clients
// (electricitymaps, watttime, carbonaware) share: JSON GET requests against a
// base URL, retries of 429 and 5xx answers that honour Retry-After with a
// bounded, context-aware backoff, and errors that name the source, the
// endpoint and what the service answered.
package apiclient
