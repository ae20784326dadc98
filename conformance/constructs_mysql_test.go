package conformance

import "testing"

func mysqlConstructs(t *testing.T, cases []acceptedCase) {}
