// Package sources builds the carbon.Chain Meridian reads intensities from,
// out of its configuration: which services to ask and in which order, their
// zone maps and request budgets, and the offline data as the last tier. The
// configuration holds no secret: the services' credentials come from
// environment variables, which a deployment sets from a Secret
// (docs/carbon.md).
package sources
