package forecast

import (
	"math"
	"time"
)

// weekProfile is a zone's mean intensity per hour of the week (0 = Monday
// 00:00 UTC). It fills the hours a history lacks.
type weekProfile [168]float64

// newWeekProfile averages the known hours of s per hour of the week; an hour
// of the week never seen takes the mean of its hour of the day, and an hour
// of the day never seen the mean of everything.
func newWeekProfile(s Series) weekProfile {
	var sums, counts [168]float64
	var daySums, dayCounts [24]float64
	var sum, count float64
	how := s.hourOfWeek(0)
	for i, v := range s.Values {
		if !math.IsNaN(v) {
			w := (how + i) % 168
			sums[w] += v
			counts[w]++
			daySums[w%24] += v
			dayCounts[w%24]++
			sum += v
			count++
		}
	}
	var p weekProfile
	for w := range p {
		switch {
		case counts[w] > 0:
			p[w] = sums[w] / counts[w]
		case dayCounts[w%24] > 0:
			p[w] = daySums[w%24] / dayCounts[w%24]
		case count > 0:
			p[w] = sum / count
		}
	}
	return p
}

// at returns the profile's value for the hour of the week how, which may be
// any integer.
func (p *weekProfile) at(how int) float64 {
	return p[((how%168)+168)%168]
}

// window returns the last n hours of recent, ending with its last hour, as a
// slice without NaN: hours recent lacks (before its first, or NaN) come from
// the profile. It also returns the hour of the week of the window's first
// hour.
func window(recent Series, n int, p *weekProfile) ([]float64, int) {
	buf := make([]float64, n)
	first := recent.Last().Add(-time.Duration(n-1) * time.Hour)
	off := recent.Index(first) // recent's index of buf[0]
	how := recent.hourOfWeek(off)
	for j := range buf {
		i := off + j
		if i >= 0 && i < len(recent.Values) && !math.IsNaN(recent.Values[i]) {
			buf[j] = recent.Values[i]
		} else {
			buf[j] = p.at(how + j)
		}
	}
	return buf, how
}

// ceilDays returns the number of whole days back from a target h hours
// ahead to the latest same hour of the day at or before the origin.
func ceilDays(h int) int { return (h + 23) / 24 }
