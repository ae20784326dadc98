package broker

import (
	"strconv"
	"time"
)

// The helpers below spell a limit's constant in the contract's words, so
// that a message naming a limit (msgStoreFull, msgDecisionExpired, …) and
// the limits table begin_session returns (contractLimits, from
// limitTable) follow the constant the broker enforces instead of
// repeating its number.

// itoa is strconv.Itoa, short for message expressions.
func itoa(n int) string { return strconv.Itoa(n) }

// seconds is d in whole seconds, the unit of the limits table.
func seconds(d time.Duration) int { return int(d / time.Second) }

// secondsDuration is n seconds.
func secondsDuration(n int) time.Duration { return time.Duration(n) * time.Second }

// span spells d as whole minutes ("5 minutes") when it is a whole
// number of minutes, else as whole seconds ("10 seconds").
func span(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return plural(int(d/time.Minute), "minute")
	}
	return plural(seconds(d), "second")
}

// mib spells n bytes as whole MiB ("1 MiB").
func mib(n int) string { return strconv.Itoa(n>>20) + " MiB" }

// kib spells n bytes as whole KiB ("64 KiB").
func kib(n int) string { return strconv.Itoa(n>>10) + " KiB" }

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
