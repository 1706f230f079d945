// Package offline is Meridian's carbon-intensity data shipped in the
// repository, and a carbon.Source over it that answers when every service is
// down, in air-gapped clusters, and in the simulator.
//
// The data (folder data/, sources and licences in data/SOURCE.md) are
// Electricity Maps' hourly life-cycle intensities of a few grid zones over
// 2021-2023 or 2021-2024, and yearly averages of every Electricity Maps zone
// over 2021-2025.
//
// How a time is answered, for a zone with hourly data:
//   - a time inside the recorded range is the recorded hour (Kind Measured or
//     Estimated, as Electricity Maps flagged it);
//   - a time outside it is replayed (Kind Replay) from the hour of the same
//     weekday and time of day a whole number of 52-week years earlier (or
//     later), the latest such hour inside the range. Weekly and daily
//     patterns survive; the season drifts by a day or so per year shifted.
//     So Latest at 2026-11-23T12:00Z (a Monday) answers the recorded
//     intensity of Monday 2024-11-25T12:00Z;
//   - Forecast returns the hours ahead from the same mapping, always as Kind
//     Replay: within the recorded range that is what actually happened, a
//     perfect forecast, which is what the simulator's oracle needs and what
//     no real forecaster achieves.
//
// A zone without hourly data but with a yearly average answers every hour
// with that year's average (Kind YearlyAverage), the nearest recorded year
// when its own is missing. Any other zone is carbon.ErrUnknownZone.
package offline
