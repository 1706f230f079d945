// Package charts holds the Helm charts Meridian renders itself, embedded in
// the binary so that rendering needs neither files beside it nor network.
//
// cloudvm renders the provider objects of a CloudVM (Azure Service
// Operator v2, Config Connector or ACK); internal/vmrender loads and
// renders it.
package charts

import "embed"

// CloudVM is the cloudvm chart: Chart.yaml, values.yaml,
// values.schema.json and templates/, under the folder "cloudvm".
//
//go:embed all:cloudvm
var CloudVM embed.FS
