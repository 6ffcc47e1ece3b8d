import { withBackoff } from 'backoff-core';
import { IndexedDbOutboxStore, QueuedError, withOutbox } from 'backoff-core/outbox';

// An order form that works offline: each order carries its own Idempotency-Key; one that cannot be sent now is
// kept in IndexedDB and sent, with the same key, when the network is back (this tab, another tab, or after a
// reload). `?api=` names the server (the tests pass theirs); by default, this page's own origin.

/** What the page exposes to the tests. */
export interface OutboxForm {
  /** Places one order; says whether it was sent now or queued. */
  submit(note: string): Promise<{ outcome: 'sent' | 'queued'; key: string }>;
  /** The keys waiting in the outbox, oldest first. */
  pending(): Promise<string[]>;
  /** Every outbox event this page heard: `type key`. */
  readonly events: string[];
}

declare global {
  interface Window {
    outboxForm: OutboxForm;
  }
}

const api = new URLSearchParams(location.search).get('api') ?? location.origin;
const send = withOutbox(withBackoff(fetch, { retries: 1 }), {
  store: new IndexedDbOutboxStore('order-outbox'),
});
const events: string[] = [];

const status = document.querySelector<HTMLParagraphElement>('#status');
const list = document.querySelector<HTMLUListElement>('#pending');

async function showPending(): Promise<string[]> {
  const entries = await send.outbox.list();
  if (list !== null) {
    list.replaceChildren(
      ...entries.map((entry) => {
        const item = document.createElement('li');
        item.textContent = `${entry.body?.type === 'text' ? entry.body.text : '(bytes)'}, since ${new Date(entry.firstSent).toLocaleTimeString()}`;
        return item;
      }),
    );
  }
  return entries.map((entry) => entry.key);
}

send.outbox.on((event) => {
  if ('entry' in event) events.push(`${event.type} ${event.entry.key}`);
  if (event.type === 'replayed' && status !== null) {
    status.className = 'sent';
    status.textContent = 'A waiting order was sent.';
  }
  void showPending();
});

async function submit(note: string): Promise<{ outcome: 'sent' | 'queued'; key: string }> {
  const key = crypto.randomUUID();
  try {
    const response = await send(`${api}/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ note }),
    });
    if (!response.ok) throw new Error(`The server answered ${response.status}.`);
    if (status !== null) {
      status.className = 'sent';
      status.textContent = 'Order placed.';
    }
    return { outcome: 'sent', key };
  } catch (error) {
    if (!(error instanceof QueuedError)) throw error;
    if (status !== null) {
      status.className = 'queued';
      status.textContent =
        error.reason === 'offline'
          ? 'You are offline: the order is saved and will be sent when the network is back.'
          : 'The order could not be sent yet: it is saved and will be sent, once, as soon as it can.';
    }
    return { outcome: 'queued', key };
  } finally {
    void showPending();
  }
}

document.querySelector<HTMLFormElement>('#order')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const note = String(new FormData(form).get('note') ?? '');
  void submit(note).then(() => form.reset());
});

window.outboxForm = { submit, pending: showPending, events };
void showPending();
