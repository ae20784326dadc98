package broker

import (
	"time"

	"github.com/dbeast/dbeast/broker/internal/contract"
)

// The broker's short names for contract's limit spellers, which build
// every message and table row that names a limit from its constant.

func itoa(n int) string                   { return contract.Itoa(n) }
func seconds(d time.Duration) int         { return contract.Seconds(d) }
func secondsDuration(n int) time.Duration { return contract.SecondsDuration(n) }
func span(d time.Duration) string         { return contract.Span(d) }
func mib(n int) string                    { return contract.MiB(n) }
func kib(n int) string                    { return contract.KiB(n) }
