package broker

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

func TestLooksPersonalFlagsNamesOfTheFixedList(t *testing.T) {
	for _, c := range []struct {
		column string
		want   bool
	}{
		{"email", true}, {"Customer_EMAIL", true}, {"phone_number", true}, {"first_name", true},
		{"home_address", true}, {"date_of_birth", true}, {"ssn", true}, {"api_token", true},
		{"client_secret", true}, {"password_hash", true},
		{"id", false}, {"item", false}, {"created_at", false}, {"amount", false},
	} {
		if got := LooksPersonal(c.column); got != c.want {
			t.Errorf("LooksPersonal(%q) = %v, want %v", c.column, got, c.want)
		}
	}
}

// TestPersonalColumnWordsAreTheDocumentedList ties the one list to its
// copy in docs/console-api.md.
func TestPersonalColumnWordsAreTheDocumentedList(t *testing.T) {
	raw, err := os.ReadFile("../docs/console-api.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)`broker.PersonalColumnWords`\\): (.*?)\\. It is a hint").FindSubmatch(raw)
	if m == nil {
		t.Fatal("docs/console-api.md does not list broker.PersonalColumnWords")
	}
	var words []string
	for _, w := range regexp.MustCompile("`([a-z]+)`").FindAllSubmatch(m[1], -1) {
		words = append(words, string(w[1]))
	}
	if !slices.Equal(words, PersonalColumnWords) {
		t.Fatalf("documented words %q, the code's %q", words, PersonalColumnWords)
	}
}

// TestServerStatusSaysWhereThingsAre pins what the console's Server page
// reads: the state directory, the log and the token file's paths, the
// version and the start time, and standard error for a broker without a
// log file.
func TestServerStatusSaysWhereThingsAre(t *testing.T) {
	dir := t.TempDir()
	b, err := New(Config{StateDir: dir, LogLocation: "/var/log/dbeast.log", ConsoleTokenFile: "/run/dbeast/console.token"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := b.ServerStatus()
	if s.StateDir != dir || s.Log != "/var/log/dbeast.log" || s.ConsoleTokenFile != "/run/dbeast/console.token" || s.Version == "" || s.StartedAt.IsZero() {
		t.Fatalf("server status %+v", s)
	}
	plain, err := New(Config{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if s := plain.ServerStatus(); s.Log != "standard error" || s.ConsoleTokenFile != "" {
		t.Fatalf("server status without a log file or token file: %+v", s)
	}
}
