// Package forecast predicts a grid zone's hourly carbon intensity 1 to 48
// hours ahead from the zone's own history: pure functions, history in,
// forecast out, no I/O and no clock, so the scheduler, the admission webhook
// and the simulator can call them alike.
//
// # Models
//
// A Model is fitted once on a zone's hourly history (a Series) and then
// predicts from the zone's latest hours:
//
//   - Regression, the forecaster: per horizon and per hour of the day, a
//     linear model of log intensity on lagged values (the last hour, the same
//     hour yesterday and a week ago, the last day's mean, 7-day hourly
//     profiles) and the zone's hour-of-week profile, fitted by weighted least
//     squares with a correction of its intercept towards the least MAPE.
//     It needs four weeks of history.
//   - Profile: the same hour's mean over the last 7 days plus the current
//     deviation from it, decaying with the horizon. It needs one day of
//     history, and serves zones whose history is too short for the
//     regression.
//   - Naive: the same hour on the last observed day ("same hour
//     yesterday"), the baseline the others must beat.
//   - YearlyAverage: a zone without hourly history forecasts its yearly
//     average (the offline data's, offline.Dataset.Yearly) for every hour,
//     and its points say so in Fallback.
//
// Fit chooses the best model the history allows. Forecast turns a model's
// prediction into carbon.Points of Kind Forecast whose Source names the model
// ("forecast/regression"), aligned as a carbon.Source's Forecast is.
//
// Source wraps another carbon.Source (a Chain, the offline data) and answers
// Forecast with these models, fitted on the zone's history from it and
// refitted daily: the only part of the package that does I/O.
//
// # Error
//
// Evaluate scores models on a held-out period: every hour of it is forecast
// from h hours before, for each horizon h, with the actual history up to
// that origin, and the mean absolute percentage error is reported per
// horizon. `meridian carbon forecast-error` runs it on the offline data, one
// held-out month per zone; docs/carbon.md ("Forecasts") has the table and
// why the regression was chosen.
package forecast
