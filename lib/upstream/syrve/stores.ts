// Turns iiko's `corporation/stores` XML into validated rows; anything not shaped like that answer is refused whole.
import { parseXml, XmlElement } from '@rgrove/parse-xml';
import * as z from 'zod';
import type { SyrveStore } from './types.ts';

// Built on the first parse (z.lazy), not at import: createDeps evaluates this module on every cold start.
const storesSchema = z.lazy(() =>
  z
    .array(
      z.object({
        id: z.string().min(1).max(100),
        code: z.string().max(100).nullable(),
        name: z.string().max(1000),
      }),
    )
    .max(100_000),
);

function childElements(element: XmlElement): XmlElement[] {
  return element.children.filter((child): child is XmlElement => child instanceof XmlElement);
}

/** The text of the first child named `name` (entities decoded, trimmed), or undefined when there is none. */
function childText(element: XmlElement, name: string): string | undefined {
  return childElements(element)
    .find((child) => child.name === name)
    ?.text.trim();
}

/**
 * `<corporateItemDtoes><corporateItemDto><id>…</id><code>…</code><name>…</name>…</corporateItemDto>…</corporateItemDtoes>`.
 * The parser is strict XML 1.0: a truncated answer, an HTML error page or an entity declared in a DTD is an error
 * here, never a guess (and never an entity expansion). An empty or missing `<code>` is null; other fields are ignored.
 */
export function parseStoresXml(xml: string): SyrveStore[] | undefined {
  let root: XmlElement | null;
  try {
    root = parseXml(xml).root;
  } catch {
    return undefined;
  }
  if (!root || root.name !== 'corporateItemDtoes') return undefined;
  const rows = childElements(root)
    .filter((item) => item.name === 'corporateItemDto')
    .map((item) => ({ id: childText(item, 'id'), code: childText(item, 'code') || null, name: childText(item, 'name') }));
  const parsed = storesSchema.safeParse(rows);
  return parsed.success ? parsed.data : undefined;
}
