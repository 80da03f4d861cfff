// Turns iiko's `corporation/stores` XML into validated rows; anything not shaped like that answer is refused whole.
import type * as ParseXml from '@rgrove/parse-xml';
import type { XmlElement } from '@rgrove/parse-xml';
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

// The parser, imported on the first stores answer rather than at load: createDeps builds the Syrve client on every cold
// start, and most requests never read a stores answer (as lib/auth/passkeys/webauthn-library.ts does for WebAuthn).
let parser: Promise<typeof ParseXml> | undefined;

function childElements(element: XmlElement): XmlElement[] {
  // XmlNode.TYPE_ELEMENT, read from each node so that no value of the package is needed before the first parse.
  return element.children.filter((child): child is XmlElement => child.type === 'element');
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
export async function parseStoresXml(xml: string): Promise<SyrveStore[] | undefined> {
  const { parseXml } = await (parser ??= import('@rgrove/parse-xml'));
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
