package sqlite

// firstStatement splits full SQL text at the end of its first statement
// and reports whether anything but whitespace, comments and semicolons
// follows. The driver runs every statement of a string it is given, and
// its API does not expose sqlite3_prepare's tail, so the engine finds the
// boundary itself and hands the driver only the first statement.
//
// The scanner is a port of SQLite's sqlite3_complete() state machine
// (complete.c): it knows string literals, the four identifier quotings,
// both comment forms, and that CREATE [TEMP] TRIGGER … BEGIN … ; END is one
// statement whose body contains semicolons. Where it could disagree with
// the parser, the effect is fail-closed: a prefix that SQLite sees as two
// statements can only arise inside a CREATE TRIGGER the scanner treats as
// one, and SQLite's parser rejects a trigger whose body does not end in
// "; END" before running anything.
//
// stmt is the text up to and including the terminating semicolon (or the
// whole text); empty is true when the text holds no statement at all.
func firstStatement(s string) (stmt string, more, empty bool) {
	const (
		tkSemi = iota
		tkWS
		tkOther
		tkExplain
		tkCreate
		tkTemp
		tkTrigger
		tkEnd
	)
	// trans[state][token] from complete.c. States: 0 invalid, 1 start,
	// 2 normal, 3 explain, 4 create, 5 trigger, 6 semi, 7 end.
	trans := [8][8]uint8{
		{1, 0, 2, 3, 4, 2, 2, 2},
		{1, 1, 2, 3, 4, 2, 2, 2},
		{1, 2, 2, 2, 2, 2, 2, 2},
		{1, 3, 3, 2, 4, 2, 2, 2},
		{1, 4, 2, 2, 2, 4, 5, 2},
		{6, 5, 5, 5, 5, 5, 5, 5},
		{6, 6, 5, 5, 5, 5, 5, 7},
		{1, 7, 5, 5, 5, 5, 5, 5},
	}
	state := uint8(0)
	seen := false // a token other than whitespace or ';' was seen
	end := -1
	i := 0
	for i < len(s) {
		c := s[i]
		tok := tkOther
		next := i + 1
		switch {
		case c == ';':
			tok = tkSemi
		case c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r':
			tok = tkWS
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := indexFrom(s, i+2, "*/")
			if j < 0 {
				next = len(s) // unterminated comment: runs to the end
			} else {
				next = j + 2
			}
			tok = tkWS
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := indexFrom(s, i+2, "\n")
			if j < 0 {
				next = len(s)
			} else {
				next = j + 1
			}
			tok = tkWS
		case c == '[':
			next = closeQuote(s, i, ']')
		case c == '`' || c == '"' || c == '\'':
			next = closeQuote(s, i, c)
		case isIDChar(c):
			j := i + 1
			for j < len(s) && isIDChar(s[j]) {
				j++
			}
			next = j
			switch fold(s[i:j]) {
			case "create":
				tok = tkCreate
			case "trigger":
				tok = tkTrigger
			case "temp", "temporary":
				tok = tkTemp
			case "end":
				tok = tkEnd
			case "explain":
				tok = tkExplain
			}
		}
		if end < 0 {
			if tok != tkWS && tok != tkSemi {
				seen = true
			}
			state = trans[state][tok]
			if tok == tkSemi && state == 1 && seen {
				end = next
			}
		} else if tok != tkWS && tok != tkSemi {
			more = true
		}
		i = next
	}
	if !seen {
		return "", false, true
	}
	if end < 0 {
		return s, false, false
	}
	return s[:end], more, false
}

// closeQuote returns the index after the closing quote q of the quoted
// token starting at i, or len(s) if it is unterminated. A doubled quote
// inside is read as two adjacent tokens, as sqlite3_complete does; the
// boundary found is the same.
func closeQuote(s string, i int, q byte) int {
	j := indexFrom(s, i+1, string(q))
	if j < 0 {
		return len(s)
	}
	return j + 1
}

func indexFrom(s string, from int, sub string) int {
	if from > len(s) {
		return -1
	}
	for k := from; k+len(sub) <= len(s); k++ {
		if s[k:k+len(sub)] == sub {
			return k
		}
	}
	return -1
}

// isIDChar matches SQLite's IdChar for the ASCII build: letters, digits,
// '_', '$' and every byte of a multi-byte UTF-8 character.
func isIDChar(c byte) bool {
	return c >= 0x80 || c == '_' || c == '$' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// firstKeyword returns the first word of stmt, lower-case, after
// whitespace and comments ("" if it starts otherwise).
func firstKeyword(stmt string) string {
	i := 0
	for i < len(stmt) {
		c := stmt[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ';':
			i++
		case c == '/' && i+1 < len(stmt) && stmt[i+1] == '*':
			j := indexFrom(stmt, i+2, "*/")
			if j < 0 {
				return ""
			}
			i = j + 2
		case c == '-' && i+1 < len(stmt) && stmt[i+1] == '-':
			j := indexFrom(stmt, i+2, "\n")
			if j < 0 {
				return ""
			}
			i = j + 1
		default:
			j := i
			for j < len(stmt) && isIDChar(stmt[j]) {
				j++
			}
			return fold(stmt[i:j])
		}
	}
	return ""
}
