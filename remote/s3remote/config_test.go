package s3remote

import (
	"errors"
	"strings"
	"testing"
)

// TestConfigFromEnv pins the README's configuration rules: the AWS
// variables and their order of precedence, the default region, the
// endpoint rule, and credentials required before anything is contacted.
func TestConfigFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	creds := map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range creds {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name, flag         string
		env                map[string]string
		region, endpoint   string
		session, bucketPfx string
	}{
		{name: "defaults", env: creds, region: DefaultRegion, bucketPfx: "runs|team/a"},
		{name: "region over default region", env: with(map[string]string{"AWS_REGION": "eu-west-3", "AWS_DEFAULT_REGION": "us-west-2"}), region: "eu-west-3", bucketPfx: "runs|team/a"},
		{name: "default region", env: with(map[string]string{"AWS_DEFAULT_REGION": "us-west-2"}), region: "us-west-2", bucketPfx: "runs|team/a"},
		{name: "flag over both endpoints", flag: "https://flag.example", env: with(map[string]string{"AWS_ENDPOINT_URL_S3": "https://s3.example", "AWS_ENDPOINT_URL": "https://all.example"}), region: DefaultRegion, endpoint: "https://flag.example", bucketPfx: "runs|team/a"},
		{name: "s3 endpoint over general", env: with(map[string]string{"AWS_ENDPOINT_URL_S3": "https://s3.example", "AWS_ENDPOINT_URL": "https://all.example"}), region: DefaultRegion, endpoint: "https://s3.example", bucketPfx: "runs|team/a"},
		{name: "general endpoint", env: with(map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:9000"}), region: DefaultRegion, endpoint: "http://127.0.0.1:9000", bucketPfx: "runs|team/a"},
		{name: "session token", env: with(map[string]string{"AWS_SESSION_TOKEN": "tok"}), region: DefaultRegion, session: "tok", bucketPfx: "runs|team/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ConfigFromEnv("s3://runs/team/a/", c.flag, env(c.env))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Region != c.region || cfg.Endpoint != c.endpoint || cfg.SessionToken != c.session ||
				cfg.Bucket+"|"+cfg.Prefix != c.bucketPfx || cfg.AccessKeyID != "id" || cfg.SecretAccessKey != "secret" {
				t.Fatalf("config %+v", cfg)
			}
		})
	}
	refusals := []struct {
		name, url, flag string
		env             map[string]string
		want            error
	}{
		{"no secret", "s3://runs", "", map[string]string{"AWS_ACCESS_KEY_ID": "id"}, ErrNoCredentials},
		{"no key id", "s3://runs", "", map[string]string{"AWS_SECRET_ACCESS_KEY": "s"}, ErrNoCredentials},
		{"plain http elsewhere", "s3://runs", "http://s3.example", creds, ErrBadEndpoint},
		{"localhost is a name", "s3://runs", "http://localhost:9000", creds, ErrBadEndpoint},
		{"endpoint path", "s3://runs", "https://s3.example/bucket", creds, ErrBadEndpoint},
		{"endpoint from env checked too", "s3://runs", "", with(map[string]string{"AWS_ENDPOINT_URL": "http://10.0.0.1:9000"}), ErrBadEndpoint},
		{"bucket case", "s3://Runs/x", "", creds, ErrBadURL},
		{"short bucket", "s3://ab", "", creds, ErrBadURL},
		{"port in URL", "s3://runs:9000/x", "", creds, ErrBadURL},
		{"dot-dot prefix", "s3://runs/a/../b", "", creds, ErrBadURL},
		{"empty segment", "s3://runs/a//b", "", creds, ErrBadURL},
	}
	for _, c := range refusals {
		if _, err := ConfigFromEnv(c.url, c.flag, env(c.env)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestConfigRefusesControlCharacters: a credential or region with a
// control character (a newline or CR left by a file or a copy) is refused
// when the remote is configured, naming the variable and not its value.
// Before, every request failed in net/http and was retried as if the
// connection had broken.
func TestConfigRefusesControlCharacters(t *testing.T) {
	for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION"} {
		env := map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"}
		env[name] = "s3cr3t\r"
		_, err := ConfigFromEnv("s3://runs/a", "", func(k string) string { return env[k] })
		if !errors.Is(err, ErrBadCredentials) || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s with a CR: %v", name, err)
		}
	}
}
