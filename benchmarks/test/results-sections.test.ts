import { describe, expect, it } from 'vitest';
import { keepSections, markedSections, withSection } from '../src/results-sections.js';

describe('RESULTS.md sections of the pacing and hedging commands', () => {
  it('a section is appended once, then replaced in place, leaving the rest of the file as it was', () => {
    const first = withSection('# Results\n\n## 1. Speed\n', 'pacing', '## Pacing\n\nrun 1');
    expect(first).toBe(
      '# Results\n\n## 1. Speed\n\n<!-- section: pacing -->\n## Pacing\n\nrun 1\n<!-- /section: pacing -->\n',
    );
    const both = withSection(first, 'hedging', '## Hedging\n\nrun 1');
    const again = withSection(both, 'pacing', '## Pacing\n\nrun 2 $& $1');
    expect(again).toBe(both.replace('run 1', () => 'run 2 $& $1'));
    expect(markedSections(again)).toHaveLength(2);
  });

  it('`pnpm bench` carries the marked sections of the file it rewrites over to the new one', () => {
    const previous = withSection(withSection('# old\n', 'pacing', 'P'), 'hedging', 'H');
    const fresh = '# new\n\n## 1. Speed\n';
    const kept = keepSections(fresh, previous);
    expect(kept.startsWith(fresh.trimEnd())).toBe(true);
    expect(markedSections(kept)).toEqual(markedSections(previous));
    expect(keepSections(fresh, '# nothing marked\n')).toBe(fresh);
  });
});
