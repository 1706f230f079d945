// Package watttime is a carbon.Source over the WattTime API v3
// (https://api.watttime.org): GET /login with HTTP basic auth returns a bearer
// token (valid 30 minutes; the client logs in again before it expires and
// once more when a request answers 401), /v3/forecast (horizon_hours=0 is
// the current value) and /v3/historical (at most 32 days a request).
//
// WattTime names balancing authorities ("CAISO_NORTH"), not Electricity Maps
// zones, so the client is configured with a zone -> region map. Its default
// signal, co2_moer, is the marginal operating emissions rate: points carry
// Signal Marginal, which a decision must not mix with average intensities.
// Values come in lbs CO2 per MWh and are converted to grams per kWh
// (1 lbs/MWh = 453.59237 g / 1000 kWh = 0.45359237 g/kWh); five-minute points
// are averaged into whole UTC hours (carbon.Hourly).
package watttime
