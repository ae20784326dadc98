package mysql

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

// capConnectWithDB is CLIENT_CONNECT_WITH_DB of the handshake response.
const capConnectWithDB = 0x08

// handshakeDBProxy listens on loopback and forwards each connection to
// the server at addr, rewriting the client's handshake response so that
// it names database db: the connection then starts with a default
// database although the client asked for none, as a pooling proxy or a
// rewriting middlebox could do. It serves plain connections only (the
// response must be readable) and stops with the test.
func handshakeDBProxy(t *testing.T, addr, db string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			track(client)
			server, err := net.Dial("tcp", addr)
			if err != nil {
				_ = client.Close()
				continue
			}
			track(server)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer client.Close()
				defer server.Close()
				if err := relayHandshake(client, server, db); err != nil {
					return
				}
				done := make(chan struct{}, 2)
				go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
				go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
				<-done
			}()
		}
	}()
	return ln.Addr().String()
}

// readPacket reads one MySQL packet (header and body).
func readPacket(r io.Reader) ([]byte, error) {
	head := make([]byte, 4)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	n := int(head[0]) | int(head[1])<<8 | int(head[2])<<16
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return append(head, body...), nil
}

// relayHandshake forwards the server's greeting and the client's
// handshake response, with db written into the response.
func relayHandshake(client, server net.Conn, db string) error {
	greeting, err := readPacket(server)
	if err != nil {
		return err
	}
	if _, err := client.Write(greeting); err != nil {
		return err
	}
	resp, err := readPacket(client)
	if err != nil {
		return err
	}
	body := resp[4:]
	caps := binary.LittleEndian.Uint32(body)
	// capabilities, max packet, collation, filler: 32 bytes; then the
	// NUL-terminated user and the length-encoded auth data.
	i := 32
	for i < len(body) && body[i] != 0 {
		i++
	}
	i++
	if i >= len(body) || body[i] >= 0xfb || caps&capConnectWithDB != 0 {
		return errors.New("unexpected handshake response")
	}
	i += 1 + int(body[i])
	out := append([]byte{}, body[:i]...)
	out = append(out, db...)
	out = append(out, 0)
	out = append(out, body[i:]...)
	binary.LittleEndian.PutUint32(out, caps|capConnectWithDB)
	head := []byte{byte(len(out)), byte(len(out) >> 8), byte(len(out) >> 16), resp[3]}
	_, err = server.Write(append(head, out...))
	return err
}

// TestReadRefusedWithDefaultDatabase: a connection that a proxy gave a
// default database in the handshake (the engine asks for none) serves no
// verified read, with tables or without, while the same reads run on a
// direct connection. Before the check, the engine only kept such a
// connection out of the pool and ran the read.
func TestReadRefusedWithDefaultDatabase(t *testing.T) {
	needServer(t)
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	direct := sourceFor(t, "", "", nil)
	cfg.Addr = handshakeDBProxy(t, cfg.Addr, testDB)
	cfg.Net, cfg.DBName, cfg.TLSConfig = "tcp", testDB, "false"
	proxied := engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()}

	e := openSource(t, proxied)
	var db string
	if err := e.conn.QueryRowContext(context.Background(), "SELECT COALESCE(DATABASE(), '')").Scan(&db); err != nil || db != testDB {
		t.Fatalf("the proxy did not give the connection a default database: %q %v", db, err)
	}
	for _, c := range []struct{ name, sql string }{
		{"with a table", "SELECT `id` FROM `" + testDB + "`.`items`"},
		{"without a table", "SELECT 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := verifyAs(t, c.sql, verifierFlavor())
			if _, _, err := openSource(t, direct).Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
				t.Fatalf("control, a direct connection: %v", err)
			}
			res, _, err := openSource(t, proxied).Read(context.Background(), engines.ReadRequest{Verdict: v})
			if err == nil {
				t.Fatalf("read %d rows on a connection with a default database", len(res.Rows))
			}
			wantErr(t, err, engines.CodeUnavailable, ReasonDefaultDatabase)
		})
	}
}
