package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportListsSkipsAndKeepsFailure: the report prints one line per
// skip reason with its count and packages, the output of a failed test,
// and exits 1 when anything failed; a run of passes exits 0.
func TestReportListsSkipsAndKeepsFailure(t *testing.T) {
	stream := `{"Action":"run","Package":"p/a","Test":"TestLive"}
{"Action":"output","Package":"p/a","Test":"TestLive","Output":"=== RUN   TestLive\n"}
{"Action":"output","Package":"p/a","Test":"TestLive","Output":"    live_test.go:12: DBEAST_TEST_POSTGRES_DSN is not set\n"}
{"Action":"output","Package":"p/a","Test":"TestLive","Output":"--- SKIP: TestLive (0.00s)\n"}
{"Action":"skip","Package":"p/a","Test":"TestLive"}
{"Action":"output","Package":"p/b","Test":"TestLive2","Output":"    b_test.go:3: DBEAST_TEST_POSTGRES_DSN is not set\n"}
{"Action":"skip","Package":"p/b","Test":"TestLive2"}
{"Action":"output","Package":"p/b","Test":"TestBrowser","Output":"    browser_test.go:9: chromium not found\n"}
{"Action":"skip","Package":"p/b","Test":"TestBrowser"}
{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t0.1s\n"}
{"Action":"pass","Package":"p/a"}
{"Action":"pass","Package":"p/b"}
`
	var out bytes.Buffer
	if code := report(strings.NewReader(stream), &out); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	for _, want := range []string{"ok  \tp/a\t0.1s", "skipped 3 tests", "SKIP    2  DBEAST_TEST_POSTGRES_DSN is not set  (p/a, p/b)", "SKIP    1  chromium not found  (p/b)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	failing := stream + `{"Action":"output","Package":"p/c","Test":"TestX","Output":"    x_test.go:1: boom\n"}
{"Action":"fail","Package":"p/c","Test":"TestX"}
{"Action":"fail","Package":"p/c"}
`
	out.Reset()
	if code := report(strings.NewReader(failing), &out); code != 1 || !strings.Contains(out.String(), "boom") {
		t.Fatalf("failing run: exit %d\n%s", code, out.String())
	}
	if code := report(strings.NewReader(""), &out); code != 1 {
		t.Fatal("an empty run passed")
	}
}
