package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// dbhubProc is one DBHub server (HTTP transport) for one database.
type dbhubProc struct {
	cmd *exec.Cmd
	url string
}

var dbhubClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 60 * time.Second}

func startDBHub(bin, dsn string) (*dbhubProc, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--transport", "http", "--port", port, "--dsn", dsn)
	cmd.Stdout = io.Discard
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &dbhubProc{cmd: cmd, url: "http://127.0.0.1:" + port + "/mcp"}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if err := dbhubQuery(context.Background(), d.url, "SELECT 1"); err == nil {
			return d, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	d.stop()
	return nil, errors.New("DBHub did not answer within 60 s")
}

func (d *dbhubProc) stop() {
	if d.cmd.Process != nil {
		d.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { d.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			d.cmd.Process.Kill()
			<-done
		}
	}
}

// dbhubQuery runs sql through DBHub's execute_sql and reads the whole
// answer.
func dbhubQuery(ctx context.Context, url, sql string) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": "tools/call",
		"params": map[string]any{"name": "execute_sql", "arguments": map[string]string{"sql": sql}}})
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := dbhubClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "data: "); ok {
			data = []byte(rest)
		}
	}
	var rpc struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &rpc); err != nil {
		return err
	}
	if rpc.Result == nil || rpc.Result.IsError {
		return errors.New("execute_sql failed")
	}
	return nil
}
