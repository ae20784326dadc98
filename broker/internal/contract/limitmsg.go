package contract

import (
	"strconv"
	"time"
)

// The helpers below spell a limit's constant in the contract's words, so
// that a message naming a limit (the request machine's msgStoreFull,
// msgDecisionExpired, …) and the limits table begin_session returns
// (broker's contractLimits, from limitTable) follow the constant the
// broker enforces instead of repeating its number.

// Itoa is strconv.Itoa, short for message expressions.
func Itoa(n int) string { return strconv.Itoa(n) }

// Seconds is d in whole seconds, the unit of the limits table.
func Seconds(d time.Duration) int { return int(d / time.Second) }

// SecondsDuration is n seconds.
func SecondsDuration(n int) time.Duration { return time.Duration(n) * time.Second }

// Span spells d as whole minutes ("5 minutes") when it is a whole
// number of minutes, else as whole seconds ("10 seconds").
func Span(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return Plural(int(d/time.Minute), "minute")
	}
	return Plural(Seconds(d), "second")
}

// MiB spells n bytes as whole MiB ("1 MiB").
func MiB(n int) string { return strconv.Itoa(n>>20) + " MiB" }

// KiB spells n bytes as whole KiB ("64 KiB").
func KiB(n int) string { return strconv.Itoa(n>>10) + " KiB" }

// Plural spells n of unit, adding an s unless n is 1.
func Plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
