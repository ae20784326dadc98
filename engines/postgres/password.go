package postgres

import (
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

var _ engines.PasswordSetter = Driver{}

// DSNWithPassword replaces the password in a PostgreSQL DSN, keeping the
// form it is written in: in a URL the userinfo's password (and any
// password in the query, which pgx prefers, is dropped); in a keyword
// string a trailing password keyword replacing every earlier one. It then
// parses both DSNs with pgconn and refuses unless the new one has exactly
// password (an empty one may be filled from the password file) and the
// same host, port, user and database. The errors never carry the DSN.
func (Driver) DSNWithPassword(dsn, password string) (string, error) {
	bad := engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	var next string
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", bad
		}
		user := ""
		if u.User != nil {
			user = u.User.Username()
		}
		u.User = url.UserPassword(user, password)
		u.RawQuery = withoutQueryKey(u.RawQuery, "password")
		next = u.String()
	} else {
		rest, ok := withoutKeyword(dsn, "password")
		if !ok {
			return "", bad
		}
		esc := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(password)
		next = strings.TrimSpace(rest + " password='" + esc + "'")
	}
	if _, err := pgconn.ParseConfig(dsn); err != nil {
		return "", bad
	}
	if !passwordSet(dsn, next, password) {
		return "", engines.NewError(engines.CodeUnavailable, engines.ReasonPasswordNotSet, nil)
	}
	return next, nil
}

// passwordSet reports whether pgconn reads next with password (an empty
// one may be filled from the password file) and the same host, port,
// user and database as old.
func passwordSet(old, next, password string) bool {
	a, err := pgconn.ParseConfig(old)
	if err != nil {
		return false
	}
	b, err := pgconn.ParseConfig(next)
	return err == nil && (password == "" || b.Password == password) &&
		a.Host == b.Host && a.Port == b.Port && a.User == b.User && a.Database == b.Database
}

// withoutQueryKey returns a raw URL query without the entries named key
// (compared unescaped), the others kept as written.
func withoutQueryKey(raw, key string) string {
	if raw == "" {
		return raw
	}
	var kept []string
	for _, part := range strings.Split(raw, "&") {
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil && n == key {
			continue
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "&")
}

// withoutKeyword returns a libpq keyword/value string without the
// entries of key, the others kept as written. Values are bare (up to
// white space, backslash escapes) or single-quoted (backslash escapes);
// ok is false for a string that does not parse.
func withoutKeyword(dsn, key string) (string, bool) {
	var kept []string
	i := 0
	for {
		for i < len(dsn) && isSpace(dsn[i]) {
			i++
		}
		if i == len(dsn) {
			return strings.Join(kept, " "), true
		}
		start := i
		for i < len(dsn) && dsn[i] != '=' && !isSpace(dsn[i]) {
			i++
		}
		name := dsn[start:i]
		for i < len(dsn) && isSpace(dsn[i]) {
			i++
		}
		if name == "" || i == len(dsn) || dsn[i] != '=' {
			return "", false
		}
		i++
		for i < len(dsn) && isSpace(dsn[i]) {
			i++
		}
		if i < len(dsn) && dsn[i] == '\'' {
			i++
			for i < len(dsn) && dsn[i] != '\'' {
				if dsn[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(dsn) {
				return "", false
			}
			i++
		} else {
			for i < len(dsn) && !isSpace(dsn[i]) {
				if dsn[i] == '\\' {
					i++
				}
				i++
			}
			if i > len(dsn) {
				return "", false
			}
		}
		if name != key {
			kept = append(kept, dsn[start:i])
		}
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
