package broker

import (
	"strconv"
	"testing"
)

func TestActivityRing(t *testing.T) {
	var a Activity
	for i := range ActivityMax + 5 {
		a.Add(ActivityEntry{Event: strconv.Itoa(i)})
	}
	l := a.List()
	if len(l) != ActivityMax || l[0].Event != strconv.Itoa(ActivityMax+4) || l[len(l)-1].Event != "5" {
		t.Fatalf("len %d first %s last %s", len(l), l[0].Event, l[len(l)-1].Event)
	}
}
