package forecast

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// Names of the models, as Model.Name returns them and forecast points carry
// them in Source ("forecast/regression").
const (
	// RegressionModel is the per-horizon linear regression (NewRegression).
	RegressionModel = "regression"
	// ProfileModel is the recent daily profile with a decaying level
	// correction (NewProfile).
	ProfileModel = "profile"
	// NaiveModel is "the same hour on the last observed day" (Naive).
	NaiveModel = "naive"
	// YearlyAverageModel is a flat yearly average for zones without history
	// (YearlyAverage).
	YearlyAverageModel = "yearly-average"
)

// SourcePrefix starts the Source of every forecast point; the model's name
// follows it.
const SourcePrefix = "forecast/"

// MaxHorizon is the longest horizon, in hours, the regression is fitted
// for. Longer horizons use the coefficients of MaxHorizon.
const MaxHorizon = 48

// Lookback is how many hours of recent history, up to the forecast's
// origin, a model reads: the regression's oldest lag is a week back. A
// shorter or holed history still forecasts, from the zone's profile where
// hours are missing.
const Lookback = 169

// Least amounts of known history, in hours, for each fitted model.
const (
	// MinRegressionHours is four weeks: a few hundred rows for each
	// horizon's regression, and every hour of the week seen several times.
	MinRegressionHours = 4 * 7 * 24
	// MinProfileHours is one day: every hour of the day seen once.
	MinProfileHours = 24
)

// Errors of this package; callers test them with errors.Is.
var (
	// ErrShortHistory means the history holds too few known hours for the
	// model asked for.
	ErrShortHistory = errors.New("history too short to fit the model")
	// ErrNoRecent means a model that forecasts from recent hours was given
	// none.
	ErrNoRecent = errors.New("no recent hours to forecast from")
)

// A Model forecasts one zone's hourly intensity from its recent hours. Models
// are pure: fitted once from a history, they read nothing else, and Predict
// neither changes the model nor keeps recent, so one model serves concurrent
// callers.
type Model interface {
	// Name identifies the model: one of the *Model constants.
	Name() string
	// Predict returns the intensities of the hours - hours after the last
	// hour of recent: element i is the hour recent.Last() + i + 1 hours.
	// recent holds the zone's latest hours (Lookback of them are read;
	// NaN or missing hours are filled from the model's profile).
	Predict(recent Series, hours int) []float64
}

// Fit fits the best model the zone's history allows: the regression with
// MinRegressionHours known hours or more, the profile with MinProfileHours
// or more. A shorter history is ErrShortHistory: use YearlyAverage.
func Fit(history Series) (Model, error) {
	switch known := history.Known(); {
	case known >= MinRegressionHours:
		return NewRegression(history)
	case known >= MinProfileHours:
		return NewProfile(history)
	default:
		return nil, fmt.Errorf("forecast: zone %q has %d known hours, want at least %d for the %s model: %w",
			history.Zone, known, MinProfileHours, ProfileModel, ErrShortHistory)
	}
}

// Forecast returns the model's forecast for the hours from the one that
// holds now until now plus horizon, as Source.Forecast does: points of Kind
// Forecast whose Source is SourcePrefix and the model's name. recent is the
// zone's history up to now, and names the zone even when it holds no hour
// (the YearlyAverage model needs none); when it ends before the current
// hour, the hours between are forecast too and left out.
func Forecast(m Model, recent Series, now time.Time, horizon time.Duration) ([]carbon.Point, error) {
	start := carbon.Hour(now)
	end := now.Add(horizon)
	if !start.Before(end) {
		return nil, fmt.Errorf("forecast: horizon %v from %s holds no hour", horizon, now.UTC().Format(time.RFC3339))
	}
	count := int(end.Sub(start)/time.Hour) + 1
	if start.Add(time.Duration(count-1) * time.Hour).Equal(end) {
		count--
	}
	lead := 0
	if recent.Len() > 0 {
		lead = int(start.Sub(recent.Last())/time.Hour) - 1
		if lead < 0 {
			// recent reaches into the hours asked for: forecast from the
			// hour before the current one.
			recent = recent.Until(start)
			lead = 0
		}
	}
	if recent.Len() == 0 || recent.Known() == 0 {
		if _, ok := m.(*YearlyAverage); !ok {
			return nil, fmt.Errorf("forecast: zone %q, model %s: %w", recent.Zone, m.Name(), ErrNoRecent)
		}
		recent = Series{Zone: recent.Zone, First: start.Add(-time.Hour), Values: []float64{math.NaN()}, Signal: recent.Signal}
	}
	values := m.Predict(recent, lead+count)[lead:]
	fallback := ""
	if r, ok := m.(interface{ Reason() string }); ok {
		fallback = r.Reason()
	}
	return points(recent, start.Add(-time.Hour), m.Name(), values, fallback), nil
}
