package s3client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// newRetryer returns the AWS SDK's standard retryer for opt: which
// failures are retried (no answer at all: a refused or broken connection,
// a timeout, a truncated body; 500, 502, 503, 504, a 429 and S3's
// throttling and timeout codes), the jittered exponential waits (a base
// of 50 ms, 1 s after throttling, at most 20 s) and the retry token
// budget every request of the Client shares (500 tokens, a retry costs
// 14, 5 after throttling, a success gives back what its retries took, or
// 1). Every operation this client sends may be repeated: reads and
// deletes are idempotent, an unconditional PUT writes the same bytes
// again, and a conditional PUT whose first try took effect unseen fails
// its retry with 412, which the caller resolves by reading the key back.
func newRetryer(opt Options) *retry.Standard {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		if opt.MaxAttempts > 0 {
			o.MaxAttempts = opt.MaxAttempts
		}
		if opt.Backoff != nil {
			o.Backoff = opt.Backoff
		}
	})
}

// nopRelease is the release of a try that took no retry token.
func nopRelease(error) error { return nil }

// send runs r with retries, the way the SDK's retry middleware drives its
// retryer: at most MaxAttempts tries while the failure is retryable and
// the token budget allows, waiting RetryDelay between them. A try's
// outcome settles the token it was given: the first try's (a success adds
// to the budget) or the retry's (a success refunds it).
func (c *Client) send(ctx context.Context, r *request, consume func(*http.Response) error) error {
	release, err := c.retryer.GetAttemptToken(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", r.op, err)
	}
	for attempt := 1; ; attempt++ {
		err := c.once(ctx, r, consume)
		// The budget's own bookkeeping: it fails only when full, which
		// changes nothing for this request.
		_ = release(err)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !c.retryer.IsErrorRetryable(err) || attempt >= c.retryer.MaxAttempts() {
			return c.fail(ctx, r, attempt, err)
		}
		var spent error
		if release, spent = c.retryToken(ctx, err); spent != nil {
			return c.fail(ctx, r, attempt, spent)
		}
		wait, derr := c.retryer.RetryDelay(attempt, err)
		if derr != nil {
			return c.fail(ctx, r, attempt, fmt.Errorf("%w (no retry: %v)", err, derr))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return c.fail(ctx, r, attempt, ctx.Err())
		case <-t.C:
		}
	}
}

// retryToken takes the cost of retrying after err from the budget. When
// the budget is spent it returns err itself, saying so.
func (c *Client) retryToken(ctx context.Context, err error) (func(error) error, error) {
	release, terr := c.retryer.GetRetryToken(ctx, err)
	if terr != nil {
		return nopRelease, fmt.Errorf("%w (not retried: this process's retry budget is spent)", err)
	}
	return release, nil
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
