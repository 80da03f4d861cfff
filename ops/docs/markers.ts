// The generated parts of a hand-written Markdown page: each figure sits between `<!-- gen:<name> -->` and `<!-- /gen -->`,
// and `npm run docs:generate` rewrites what is between them from the code (ops/docs/figures.ts), never the prose around.
// A figure's text holds no comment, so a marker left unclosed cannot swallow the next one.
const OPENING = /<!-- gen:[\w.:-]+ -->/g;
const MARKED = /<!-- gen:([\w.:-]+) -->((?:(?!<!--)[\s\S])*?)<!-- \/gen -->/g;

/** A figure's text: a phrase inside a sentence, or a block (a table, a list) set apart by blank lines. */
export type FigureText = { inline: string } | { block: string };

/** The names a page marks, in order of appearance. */
export function markedNames(text: string): string[] {
  return [...text.matchAll(MARKED)].map((match) => match[1]!);
}

/** The page with every marked figure written afresh; a name with no figure throws, naming it. */
export function fillMarkers(text: string, figures: ReadonlyMap<string, FigureText>, page: string): string {
  const opened = text.match(OPENING)?.length ?? 0;
  if (opened !== markedNames(text).length) throw new Error(`${page}: a <!-- gen:… --> marker without its <!-- /gen -->`);
  return text.replace(MARKED, (_whole, name: string, _body: string, offset: number) => {
    const figure = figures.get(name);
    if (figure === undefined) throw new Error(`${page}: <!-- gen:${name} --> names no figure of ops/docs/figures.ts`);
    // A line that opens with `<!--` is an HTML block in Markdown: the sentence around an inline figure would break there.
    if ('inline' in figure && /(^|\n)[ \t]*$/.test(text.slice(0, offset))) {
      throw new Error(`${page}: the inline figure <!-- gen:${name} --> opens a line; move a word of the sentence before it`);
    }
    const body = 'inline' in figure ? figure.inline : `\n\n${figure.block.trim()}\n\n`;
    return `<!-- gen:${name} -->${body}<!-- /gen -->`;
  });
}
