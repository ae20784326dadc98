package main

import (
	"errors"
	"io"
	"testing"
)

// TestTokenFileFromEnvironment: the token file comes from
// --console-token-file, else from DBEAST_CONSOLE_TOKEN_FILE (as for the
// dbeast CLI), and one of them is required.
func TestTokenFileFromEnvironment(t *testing.T) {
	cases := []struct {
		name, env string
		args      []string
		want      string
		err       error
	}{
		{"variable only", "/run/env.token", nil, "/run/env.token", nil},
		{"flag wins over the variable", "/run/env.token", []string{"--console-token-file", "/run/flag.token"}, "/run/flag.token", nil},
		{"flag only", "", []string{"--console-token-file=/run/flag.token"}, "/run/flag.token", nil},
		{"neither", "", nil, "", errNoTokenFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "DBEAST_CONSOLE_TOKEN_FILE" {
					return c.env
				}
				return ""
			}
			_, got, err := parseFlags(c.args, getenv, io.Discard)
			if got != c.want || !errors.Is(err, c.err) {
				t.Fatalf("token file %q, %v; want %q, %v", got, err, c.want, c.err)
			}
		})
	}
}
