package mysql

import (
	"net/url"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

var _ engines.PasswordSetter = Driver{}

// DSNWithPassword replaces the password in a MySQL/MariaDB DSN, keeping
// the form it is written in: in a mysql:// or mariadb:// URL the
// userinfo's password, in go-sql-driver's form the Config's Passwd. It
// then reads both DSNs as the engine does (driverDSN, then the driver's
// parser) and refuses unless the new one has exactly password and the
// same network, address, user and database. The errors never carry the
// DSN.
func (Driver) DSNWithPassword(dsn, password string) (string, error) {
	bad := engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	var next string
	if isURLForm(dsn) {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", bad
		}
		user := ""
		if u.User != nil {
			user = u.User.Username()
		}
		u.User = url.UserPassword(user, password)
		next = u.String()
	} else {
		cfg, err := gomysql.ParseDSN(dsn)
		if err != nil {
			return "", bad
		}
		cfg.Passwd = password
		next = cfg.FormatDSN()
	}
	if _, ok := parseDriverForm(dsn); !ok {
		return "", bad
	}
	if !passwordSet(dsn, next, password) {
		return "", engines.NewError(engines.CodeUnavailable, engines.ReasonPasswordNotSet, nil)
	}
	return next, nil
}

// passwordSet reports whether the engine reads next, in any accepted
// form, with password and the same network, address, user and database
// as old.
func passwordSet(old, next, password string) bool {
	a, ok := parseDriverForm(old)
	if !ok {
		return false
	}
	b, ok := parseDriverForm(next)
	return ok && b.Passwd == password && a.Net == b.Net && a.Addr == b.Addr && a.User == b.User && a.DBName == b.DBName
}

// isURLForm reports whether dsn is written as a mysql:// or mariadb://
// URL (driverDSN's test, scheme compared without case).
func isURLForm(dsn string) bool {
	low := strings.ToLower(dsn)
	for _, s := range urlSchemes {
		if strings.HasPrefix(low, s) {
			return true
		}
	}
	return false
}

// parseDriverForm reads dsn, in any accepted form, as go-sql-driver will.
func parseDriverForm(dsn string) (*gomysql.Config, bool) {
	d, ok := driverDSN(dsn)
	if !ok {
		return nil, false
	}
	cfg, err := gomysql.ParseDSN(d)
	if err != nil {
		return nil, false
	}
	return cfg, true
}
