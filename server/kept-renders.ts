/**
 * Guest pages that show nothing anyone entered, rendered by React once their inputs repeat and kept
 * (decision 243): a new sign-in page differs from the last one only in values made for its request (the
 * flow id, CSRF tokens, the CSP nonce), so rendering it again spent a fifth of the request's CPU on text we
 * already had. The same pages as decision 241's templates, and the same values cut out. An account's own
 * page is kept too, apart from the guest screens (decision 253): its key holds the account's data, so it
 * answers for that account only.
 *
 * A render is keyed by everything it is made from, with the request's values replaced by a placeholder:
 * the page's element tree (its components by identity, every prop), the view context but its translator
 * (a function of the language, which the key holds) and request id, the title and the canonical address.
 * A render is kept only once two renders with the same key, made with different values (each request
 * has its own CSP nonce), have the same text around the values' places: a value the page shows in another
 * form (escaped, encoded), or a per-request input the key misses that changed between the two, leaves that
 * key never kept.
 */
import type { LRUCache } from 'lru-cache';
import { boundedLru, cachesPerOwner } from './bounded-lru.ts';
import { cutsIn, partsOf, PLACEHOLDER } from './page-templates.ts';

/** A render's text around the values' places, and which value stands in each place (an index into the values). */
type KeptRender = { parts: readonly string[]; order: readonly number[] };

/**
 * Which pages a render is kept among: `guest` screens (shared by every visitor), or one `account`'s own pages
 * (decision 253), which are kept apart so that many people's pages cannot push the guest screens out.
 */
export type RenderScope = 'guest' | 'account';
// Per owner (the app). Guest: every guest screen per language, with and without the cookie banner, with
// room. Account: the pages of the accounts seen most recently (~17 KB of text each).
const RENDERS_KEPT: Record<RenderScope, number> = { guest: 64, account: 256 };
// Values made by Kratos and by us: UUIDs, base64 and base64url, hex. Characters HTML and JSON leave as they
// are, so a value is in the page as it is in the key; anything else is not keyed (rendered per request).
const KEYABLE_VALUE = /^[A-Za-z0-9+/=_.~:-]{16,}$/;
// React's element marker (React 19; the legacy one too): an element is keyed by its type and props.
const ELEMENT_MARKS = new Set([Symbol.for('react.transitional.element'), Symbol.for('react.element')]);
// Fields development builds of React add to an element: debugging aids, not what it renders.
const DEVELOPMENT_FIELDS = new Set(['_owner', '_store', '_debugStack', '_debugTask', '_debugInfo', '_self', '_source']);

const identities = new WeakMap<object, number>();
let lastIdentity = 0;

/** A number for this object or function, the same for as long as it lives (a component, a context, an app's assets). */
export function identityOf(thing: object): string {
  let id = identities.get(thing);
  if (id === undefined) {
    id = ++lastIdentity;
    identities.set(thing, id);
  }
  return `#${id}`;
}

const isElement = (value: object): boolean => ELEMENT_MARKS.has((value as { $$typeof?: symbol }).$$typeof as symbol);

class NotKeyable extends Error {}

/**
 * Functions and React's own objects (contexts, memo and forwardRef wrappers) by identity: a closure made for
 * a request gets a new number, so its page is never kept. Objects other than plain ones and arrays (a Map, a
 * class) may not show their state to JSON: such a page is not keyed; one with `toJSON` (a Date, a URL) has
 * been turned into what it shows before it comes here.
 */
function keyPart(this: unknown, name: string, value: unknown): unknown {
  if (DEVELOPMENT_FIELDS.has(name) && this && typeof this === 'object' && isElement(this)) return undefined;
  if (typeof value === 'function') return identityOf(value);
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return value;
  if ('$$typeof' in value && !isElement(value)) return identityOf(value);
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) throw new NotKeyable();
  return value;
}

/**
 * The key of a render made from `inputs`, with each of `values` replaced by a placeholder; undefined when
 * something in it cannot be keyed (a value of other characters, an object JSON cannot show, a cycle).
 */
export function renderKeyOf(inputs: readonly unknown[], values: readonly string[]): string | undefined {
  if (!values.every((value) => KEYABLE_VALUE.test(value))) return undefined;
  let key: string;
  try {
    key = JSON.stringify(inputs, keyPart);
  } catch {
    // NotKeyable, or a cycle (TypeError): rendered per request.
    return undefined;
  }
  // JSON escapes the placeholder's character, so in the key it stands only for a value; numbered, so the
  // key also says which value stands where.
  values.forEach((value, i) => {
    key = key.replaceAll(value, `${PLACEHOLDER}${i}${PLACEHOLDER}`);
  });
  return key;
}

function keptRenderOf(html: string, values: readonly string[]): KeptRender {
  const cuts = cutsIn(html, values);
  return { parts: partsOf(html, cuts), order: cuts.map((cut) => values.indexOf(cut.value)) };
}

const sameRender = (a: KeptRender, b: KeptRender): boolean =>
  a.parts.length === b.parts.length && a.parts.every((part, i) => part === b.parts[i]) && a.order.every((at, i) => at === b.order[i]);

// `seen`: a render met once under its key, not yet kept.
type ScopeCaches = { kept: LRUCache<string, KeptRender>; seen: LRUCache<string, KeptRender> };
const scopeCaches = (scope: RenderScope): ScopeCaches => ({ kept: boundedLru(RENDERS_KEPT[scope]), seen: boundedLru(RENDERS_KEPT[scope]) });
const cachesOf = cachesPerOwner((): Record<RenderScope, ScopeCaches> => ({ guest: scopeCaches('guest'), account: scopeCaches('account') }));

/** The kept render for `key` with this request's `values` in their places, or undefined. */
export function keptRender(owner: object, key: string, values: readonly string[], scope: RenderScope = 'guest'): string | undefined {
  const kept = cachesOf(owner)[scope].kept.get(key);
  if (!kept) return undefined;
  let html = kept.parts[0]!;
  kept.order.forEach((at, i) => {
    html += values[at]! + kept.parts[i + 1]!;
  });
  return html;
}

/**
 * A render made for `key`: kept if a render with the same key, made with other values, had the same text
 * around them. A second sighting with other text replaces the first, and neither is kept.
 */
export function offerRender(owner: object, key: string, html: string, values: readonly string[], scope: RenderScope = 'guest'): void {
  const { kept, seen } = cachesOf(owner)[scope];
  const render = keptRenderOf(html, values);
  const before = seen.get(key);
  if (!before || !sameRender(before, render)) {
    seen.set(key, render);
    return;
  }
  seen.delete(key);
  kept.set(key, render);
}
