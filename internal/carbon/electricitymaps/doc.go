// Package electricitymaps is a carbon.Source over the Electricity Maps API v3
// (https://api.electricitymaps.com): /v3/carbon-intensity/latest, /history
// (the last 24 hours), /past-range (older hours, at most ten days a request)
// and /forecast, authenticated by the auth-token header, zones by their
// Electricity Maps keys. Intensities are gCO2eq/kWh, life-cycle by default,
// hourly; no conversion or alignment is needed.
package electricitymaps
