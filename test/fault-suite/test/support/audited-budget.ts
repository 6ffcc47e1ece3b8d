import { RetryBudget, type RetryBudgetOptions } from 'backoff-core';
import type { RetryKind } from 'backoff-core/adapter';

/** One operation on the budget, with the balance right after it (in retries, as `snapshot()` gives it). */
export type BudgetEvent =
  | { readonly op: 'acquire'; readonly kind: RetryKind; readonly granted: boolean; readonly tokens: number }
  | { readonly op: 'success'; readonly tokens: number };

/**
 * A RetryBudget that records every operation, in the order the calls made them: the test-only accounting check.
 * The bucket itself is the real one (`super`); only the log is added.
 */
export class AuditedBudget extends RetryBudget {
  readonly log: BudgetEvent[] = [];

  override tryAcquire(kind: RetryKind = 'transient'): boolean {
    const granted = super.tryAcquire(kind);
    this.log.push({ op: 'acquire', kind, granted, tokens: this.snapshot().tokens });
    return granted;
  }

  override recordSuccess(): void {
    super.recordSuccess();
    this.log.push({ op: 'success', tokens: this.snapshot().tokens });
  }
}

/**
 * The balance replayed from the log on its own, in integer thousandths of a retry: start full at `reserve`, each
 * success adds `ratio` up to the cap, each acquire takes its price (one retry, `throttlingCost` for a throttling
 * one) when that much is there. Returns the
 * balance after every step and the verdict on every acquire, for comparison with what the real budget did.
 */
export function replay(
  log: readonly BudgetEvent[],
  { reserve = 20, ratio = 0.1, throttlingCost = 5 / 14 }: RetryBudgetOptions = {},
) {
  const capacity = reserve * 1000;
  const credit = Math.round(ratio * 1000);
  const throttled = Math.round(throttlingCost * 1000);
  let tokens = capacity;
  const balances: number[] = [];
  const grants: boolean[] = [];
  for (const event of log) {
    if (event.op === 'success') {
      tokens = Math.min(capacity, tokens + credit);
    } else if (tokens >= (event.kind === 'throttling' ? throttled : 1000)) {
      tokens -= event.kind === 'throttling' ? throttled : 1000;
      grants.push(true);
    } else {
      grants.push(false);
    }
    balances.push(tokens / 1000);
  }
  return { tokens: tokens / 1000, balances, grants };
}
