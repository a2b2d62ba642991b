package objects

import "testing"

// TestRedactURLCredentials pins issue 10 item 8: a password in a URL is
// replaced by the SPEC §1.7 marker, keeping scheme, user and host, in
// blobs and in string values; URLs without a password stay.
func TestRedactURLCredentials(t *testing.T) {
	cases := map[string]string{
		"connect postgres://app:hunter2@db.internal:5432/main ok\n":  "connect postgres://app:[REDACTED]@db.internal:5432/main ok\n",
		"git clone https://bob:ghtoken123@github.com/org/repo.git\n": "git clone https://bob:[REDACTED]@github.com/org/repo.git\n",
		"DATABASE_URL=mysql://root:p@ss:w0rd@10.0.0.1/db\n":          "DATABASE_URL=mysql://root:[REDACTED]@10.0.0.1/db\n",
		`{"url":"amqp://guest:s3cr3t@mq?x=1"}`:                       `{"url":"amqp://guest:[REDACTED]@mq?x=1"}`,
		"redis+tls://:onlypass@cache/0\n":                            "redis+tls://:[REDACTED]@cache/0\n",
		"ssh://git@github.com/org/repo\n":                            "ssh://git@github.com/org/repo\n",
		"https://example.com/a:b@c and mail me@home\n":               "https://example.com/a:b@c and mail me@home\n",
		"ftp://user:@host/\n":                                        "ftp://user:@host/\n",
		"two: https://a:x1@h1/ https://b:y2@h2/\n":                   "two: https://a:[REDACTED]@h1/ https://b:[REDACTED]@h2/\n",
		"dsn=postgres://u:pw@h/db\n":                                 "dsn=[REDACTED]\n",
		"postgres://app:[REDACTED]@db/main\n":                        "postgres://app:[REDACTED]@db/main\n",
	}
	for in, want := range cases {
		got := string(RedactBlob([]byte(in)))
		if got != want {
			t.Errorf("RedactBlob(%q) = %q, want %q", in, got, want)
		}
		if again := string(RedactBlob([]byte(got))); again != got {
			t.Errorf("RedactBlob is not idempotent on %q: %q", got, again)
		}
	}
	v, n := RedactValue(ObjectValue(Member{Key: "db", Value: String("postgres://app:hunter2@db/main")}))
	if got, _ := v.Get("db"); got.Str != "postgres://app:[REDACTED]@db/main" || n != 1 {
		t.Errorf("RedactValue of a URL = %q (%d replaced)", got.Str, n)
	}
}
