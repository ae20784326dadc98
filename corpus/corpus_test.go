package corpus

import "testing"

func TestParse(t *testing.T) {
	text := "# plain read\naccept public.b public.a\nSELECT 1\nFROM x\n----\nSELECT 1 FROM x\n\n# lock\nreject locking_clause mode=read\nSELECT 1 FOR UPDATE\n----\n\nreject invalid_encoding quoted\n\"SELECT \\x00\"\n----\n"
	cs, err := Parse("t.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Fatalf("got %d cases, want 3", len(cs))
	}
	if !cs[0].Accept || cs[0].SQL != "SELECT 1\nFROM x" || cs[0].Normalized != "SELECT 1 FROM x" || cs[0].Doc != "plain read" {
		t.Errorf("case 0 = %+v", cs[0])
	}
	if len(cs[0].Tables) != 2 || cs[0].Tables[0] != "public.a" {
		t.Errorf("tables not sorted: %v", cs[0].Tables)
	}
	if cs[1].Accept || cs[1].Code != "locking_clause" || cs[1].Mode != "read" {
		t.Errorf("case 1 = %+v", cs[1])
	}
	if cs[2].SQL != "SELECT \x00" {
		t.Errorf("quoted SQL = %q", cs[2].SQL)
	}
	for _, bad := range []string{"reject\nx\n----\n", "accept\nSELECT 1\n", "frob\n"} {
		if _, err := Parse("bad.txt", bad); err == nil {
			t.Errorf("Parse(%q) accepted malformed input", bad)
		}
	}
}

func TestLoadAll(t *testing.T) {
	for _, d := range []string{"postgres", "mysql", "sqlite"} {
		if _, err := Load(d); err != nil {
			t.Errorf("Load(%s): %v", d, err)
		}
	}
}
