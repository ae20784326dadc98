package conformance

import "testing"

func sqliteConstructs(t *testing.T, cases []acceptedCase) {}
