// docs/design/scheduled.md's retention figures held to lib/runtime/retention/retention-task.ts: how many phases, their
// names in order, what a run with nothing to delete costs, and each batch's limit, so the text cannot drift again.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { RETENTION_BATCH, RETENTION_PHASES } from '../../lib/runtime/retention/index.ts';

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const text = readFileSync(new URL('../../docs/design/scheduled.md', import.meta.url), 'utf8');
const section = text.slice(text.indexOf('\n## Retention'));
/** The paragraph of the section that opens with `opening` (a regular expression), on one line. */
const paragraph = (opening: RegExp) => {
  const start = section.search(new RegExp(`\\n${opening.source}`));
  expect(start, opening.source).toBeGreaterThanOrEqual(0);
  return section.slice(start + 1, section.indexOf('\n\n', start + 1)).replaceAll('\n', ' ');
};
/** A count as the prose writes it: a word up to twelve, capitalised or not. */
const countOf = (word: string | undefined) => NUMBER_WORDS.indexOf((word ?? '').toLowerCase());
const phases = paragraph(/\*\*\w+ phases, one statement per batch\*\*/);

it('names as many phases as the task has, in its order', () => {
  expect(countOf(/^\*\*(\w+) phases/.exec(phases)?.[1])).toBe(RETENTION_PHASES.length);
  const named = [...phases.matchAll(/`([a-z]+(?:-[a-z]+)+)`/g)].map(([, name]) => name);
  expect(named).toEqual([...RETENTION_PHASES]);
});

it('says a run goes round every phase and what a run with nothing to delete costs: the cursor read, a statement per phase, the cursor write', () => {
  const budget = paragraph(/\*\*The budget and the cursor\.\*\*/);
  expect(countOf(/goes round all (\w+)/.exec(budget)?.[1])).toBe(RETENTION_PHASES.length);
  expect(countOf(/nothing to delete costs (\w+) commands/.exec(budget)?.[1])).toBe(1 + RETENTION_PHASES.length + 1);
});

it("lists every batch's limit", () => {
  const limits = /`RETENTION_BATCH`: ([^)]*)\)/.exec(phases)?.[1] ?? '';
  const written = [...limits.matchAll(/(\d[\d ]*\d|\d) [a-z]/g)].map(([, figure]) => Number(figure!.replaceAll(' ', '')));
  expect(written.sort((a, b) => a - b)).toEqual(Object.values(RETENTION_BATCH).sort((a, b) => a - b));
});
