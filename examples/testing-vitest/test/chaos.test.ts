// The app's integration test under seeded chaos: a fifth of the answers fail, some connections drop, every answer
// is late. The seed makes the run repeatable: the same faults, the same count of requests, every time.
import { API, fetchClient } from '@backoff/example-testing-app';
import { chaos, virtualTime } from 'backoff-core/testing';
import { HttpResponse, http } from 'msw';
import { expect, it } from 'vitest';
import { server } from './server.ts';

it('every call of the app gets its items, whatever the chaos in front of the API', async () => {
  const time = virtualTime();
  const faults = chaos({
    seed: 2026,
    failRate: 0.2,
    statuses: [500, 503],
    resetRate: 0.05,
    latency: [20, 400],
  });
  // Chaos first: what it lets through reaches the API's own handler.
  server.use(
    faults,
    http.get(`${API}/items`, () => HttpResponse.json([1, 2, 3])),
  );
  const api = fetchClient(time.options);

  for (let i = 0; i < 20; i++) {
    const response = await time.run(api(`${API}/items`));
    expect(await response.json()).toEqual([1, 2, 3]);
  }

  const answers = faults.requests.map((request) => request.answer);
  expect(answers.filter((answer) => answer === 'passed')).toHaveLength(20);
  // Seed 2026 makes 9 faults on the way, on every run: 29 requests for 20 calls.
  expect(answers).toHaveLength(29);
  time.restore();
});
