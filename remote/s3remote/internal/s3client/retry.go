package s3client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// The retry quota of the AWS SDK's standard retryer: a bucket of tokens a
// retry spends (more after a timeout) and a success refills, so a server
// that keeps failing soon gets first tries only.
const (
	quotaTokens      = 500
	quotaRetryCost   = 5
	quotaTimeoutCost = 10
	quotaNoRetryGain = 1
)

// retryQuota is the token bucket, shared by every request of a Client.
type retryQuota struct {
	mu     sync.Mutex
	tokens int
}

func newRetryQuota() *retryQuota { return &retryQuota{tokens: quotaTokens} }

// take spends the cost of retrying after err, false when the bucket is
// too low.
func (q *retryQuota) take(err error) (int, bool) {
	cost := quotaRetryCost
	if isTimeout(err) {
		cost = quotaTimeoutCost
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tokens < cost {
		return 0, false
	}
	q.tokens -= cost
	return cost, true
}

// give returns n tokens after a success (the cost of the retries that led
// to it, or quotaNoRetryGain for a first-try success).
func (q *retryQuota) give(n int) {
	q.mu.Lock()
	q.tokens = min(quotaTokens, q.tokens+n)
	q.mu.Unlock()
}

// retryable reports whether a failed attempt may be tried again: no
// answer at all (connection refused or broken, truncated body), 500, 502,
// 503, 504, 429, and S3's throttling and timeout codes. Every operation
// this client sends may be repeated: reads and deletes are idempotent, an
// unconditional PUT writes the same bytes again, and a conditional PUT
// whose first try took effect unseen fails its retry with 412, which the
// caller resolves by reading the key back (as with the SDK). A cancelled
// context is never retried.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var ce *connError
	if errors.As(err, &ce) {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Status {
	case 500, 502, 503, 504, 429:
		return true
	}
	switch e.Code {
	case "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
		"TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
		"RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
		"SlowDown", "PriorRequestNotComplete", "EC2ThrottledException", "RequestTimeout", "RequestTimeoutException":
		return true
	}
	return false
}

// backoff is the wait before retry number attempt (1 for the first):
// full jitter below unit×2^attempt, capped at maxBackoff.
func backoff(unit time.Duration, attempt int) time.Duration {
	ceiling := maxBackoff
	if attempt < 16 {
		ceiling = min(maxBackoff, unit<<attempt)
	}
	return time.Duration(rand.Float64() * float64(ceiling))
}

// send runs r with retries: at most MaxAttempts tries while the failure
// is retryable and the quota allows, waiting backoff between them.
func (c *Client) send(ctx context.Context, r *request, consume func(*http.Response) error) error {
	spent := 0
	for attempt := 1; ; attempt++ {
		err := c.once(ctx, r, consume)
		if err == nil {
			c.quota.give(max(spent, quotaNoRetryGain))
			return nil
		}
		if attempt >= c.opt.MaxAttempts || !retryable(ctx, err) {
			return c.fail(ctx, r, attempt, err)
		}
		cost, ok := c.quota.take(err)
		if !ok {
			return c.fail(ctx, r, attempt, err)
		}
		spent += cost
		t := time.NewTimer(backoff(c.opt.BackoffUnit, attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return c.fail(ctx, r, attempt, ctx.Err())
		case <-t.C:
		}
	}
}

// fail words the last error of r after attempt tries.
func (c *Client) fail(ctx context.Context, r *request, attempt int, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	if attempt > 1 {
		return fmt.Errorf("%s: %d tries, the last: %w", r.op, attempt, err)
	}
	return fmt.Errorf("%s: %w", r.op, err)
}
