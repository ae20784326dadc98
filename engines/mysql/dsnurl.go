package mysql

import (
	"net"
	"net/url"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
)

// URL forms of a source DSN. People copy MySQL and MariaDB DSNs from
// their tools as URLs (mysql://user:pass@host:3306/db, the form of the
// mysql client, Prisma, SQLAlchemy and most hosting dashboards);
// go-sql-driver only reads its own user:pass@tcp(host:port)/db form.
// driverDSN turns the URL forms into that one so everything downstream
// (parseConfig, the pool, the proof) sees a single syntax.

// urlSchemes are the URL schemes accepted as MySQL/MariaDB DSNs.
var urlSchemes = []string{"mysql://", "mariadb://"}

// sslModes maps the mysql client's ssl-mode values to go-sql-driver's
// tls parameter: REQUIRED encrypts without checking the certificate (as
// the mysql client does), the VERIFY modes check it.
var sslModes = map[string]string{
	"disabled": "false", "preferred": "preferred", "required": "skip-verify",
	"verify_ca": "true", "verify_identity": "true",
}

// driverDSN returns dsn in go-sql-driver's form: a mysql:// or
// mariadb:// URL converted, anything else unchanged. The URL's query is
// passed through as driver parameters, except ssl-mode (or sslmode),
// which becomes tls, and socket, which selects a Unix socket. ok is
// false for a URL that does not parse; nothing of the DSN is ever put in
// an error.
func driverDSN(dsn string) (out string, ok bool) {
	low := strings.ToLower(dsn)
	isURL := false
	for _, s := range urlSchemes {
		isURL = isURL || strings.HasPrefix(low, s)
	}
	if !isURL {
		return dsn, true
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Opaque != "" || u.Fragment != "" {
		return "", false
	}
	cfg := gomysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if strings.Contains(cfg.DBName, "/") {
		return "", false
	}
	q := u.Query()
	if sock := q.Get("socket"); sock != "" {
		cfg.Net, cfg.Addr = "unix", sock
		q.Del("socket")
	} else {
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	for _, k := range []string{"ssl-mode", "sslmode", "ssl_mode"} {
		if v := q.Get(k); v != "" {
			tls, known := sslModes[strings.ToLower(v)]
			if !known {
				return "", false
			}
			q.Set("tls", tls)
			q.Del(k)
		}
	}
	out = cfg.FormatDSN()
	if len(q) > 0 {
		// FormatDSN writes the password raw, so only a '?' after the
		// last '/' (before the database name) starts its parameters.
		sep := "?"
		if strings.Contains(out[strings.LastIndex(out, "/"):], "?") {
			sep = "&"
		}
		out += sep + q.Encode()
	}
	return out, true
}
