package carbon

import "time"

// Integral returns the integral of the zone's hourly intensity over
// [from, to), in g/kWh x hours, exactly as the scheduler integrates a run
// (partial hours weighted, hours outside the snapshot or in its holes at the
// zone's mean), and how many of the hours it touches were not known; false
// when the snapshot does not know the zone. A run drawing watts emits
// watts/1000 x the integral grams: the simulator's accounting and its
// perfect-knowledge oracle use it so that they count as the scheduler does.
func (in *Intensities) Integral(zone string, from, to time.Time) (float64, int, bool) {
	s := in.series(zone)
	if s == nil {
		return 0, 0, false
	}
	v, unknown := s.integral(from.Unix(), to.Unix())
	return v, unknown, true
}
