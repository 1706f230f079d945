// Package carbonaware is a carbon.Source over the Green Software Foundation's
// Carbon Aware SDK WebAPI, a service an operator runs next to Meridian:
// GET /emissions/bylocations (observed intensities, "location", "time",
// "toTime") and GET /emissions/forecasts/current (the latest forecast,
// "location"). The SDK reports grams per kWh ("rating", "value"), already
// converted from whatever its data source uses; its points are usually five
// minutes apart and are averaged into whole UTC hours (carbon.Hourly).
//
// The SDK names locations as its location files do (Azure region names by
// default, e.g. "westeurope"), so the client is configured with a zone ->
// location map. Whether the figures are marginal (the SDK's WattTime data
// source) or average (its Electricity Maps data source) depends on how the
// SDK is configured, so the client is told which (Config.Signal).
package carbonaware
