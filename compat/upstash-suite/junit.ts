// Reads the JUnit XML that `bun test --reporter=junit` writes into one outcome per test case.
export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestOutcome {
  /** `file:line › describe path › name`, stable across runs of one checkout. */
  id: string;
  file: string;
  status: TestStatus;
  /** First line of the failure message, for failed tests. */
  reason?: string;
}

const TESTCASE = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
const ATTRIBUTE = /(\w[\w-]*)="([^"]*)"/g;

export function readJunit(xml: string): TestOutcome[] {
  const outcomes: TestOutcome[] = [];
  for (const match of xml.matchAll(TESTCASE)) {
    const attributes = new Map<string, string>();
    for (const [, name = '', value = ''] of (match[1] ?? '').matchAll(ATTRIBUTE)) attributes.set(name, decodeXml(value));
    const body = match[3] ?? '';
    const file = attributes.get('file') ?? '';
    // Bun writes the describe path innermost first ("inner > outer"); outermost first reads naturally.
    const describePath = (attributes.get('classname') ?? '')
      .split(' > ')
      .filter((part) => part !== '')
      .reverse();
    const id = [`${file}:${attributes.get('line') ?? '?'}`, ...describePath, attributes.get('name') ?? ''].join(' › ');
    const failure = /<(failure|error)\b[^>]*?message="([^"]*)"/.exec(body);
    if (failure !== null || /<(failure|error)\b/.test(body)) {
      outcomes.push({ id, file, status: 'failed', reason: firstLine(decodeXml(failure?.[2] ?? 'failed')) });
    } else if (/<skipped\b/.test(body)) {
      outcomes.push({ id, file, status: 'skipped' });
    } else {
      outcomes.push({ id, file, status: 'passed' });
    }
  }
  return outcomes;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((part) => part.trim() !== '') ?? text;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number(lower.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[lower] ?? '';
  });
}
