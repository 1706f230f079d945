// Package policies embeds Meridian's default policy bundle: the Rego modules
// under meridian/ (packages meridian.vm.*), their data documents under
// meridian/clouds/ (sources and licences in meridian/clouds/SOURCES.md) and
// the bundle's .manifest. The layout is an OPA bundle, so `opa build -b
// policies` packs the same files into a bundle.tar.gz that a bundle server
// can serve; the meridian binary carries this copy so that it decides without
// one.
package policies

import "embed"

// Bundle is the default bundle's files, rooted at the bundle's root.
//
//go:embed .manifest meridian
var Bundle embed.FS
