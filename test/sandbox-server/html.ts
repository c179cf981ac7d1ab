/**
 * A small, strict HTML reader for the inspector test (no browser on the machine): it builds an
 * element tree, fails on any unclosed or mismatched tag, and decodes the five entities the page
 * writes. Enough to read a server-rendered page the way a browser would lay out its tables.
 */

/** An element and its children (text nodes are strings). */
export interface Element {
  readonly tag: string;
  readonly attrs: Record<string, string>;
  readonly children: Array<Element | string>;
}

const VOID = new Set(['meta', 'br', 'hr', 'img', 'input', 'link']);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ENTITIES[e] ?? '');
}

function attrsOf(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of source.matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)) attrs[m[1]!.toLowerCase()] = decode(m[2] ?? '');
  return attrs;
}

/** Parses a whole document; throws on a mismatched or unclosed tag. */
export function parseHtml(html: string): Element {
  const root: Element = { tag: '#root', attrs: {}, children: [] };
  const stack: Element[] = [root];
  const top = (): Element => stack[stack.length - 1]!;
  // <style> content is raw text: skip it whole.
  const tokens = html.replace(/<!doctype[^>]*>/i, '').matchAll(/<style>[\s\S]*?<\/style>|<\/?([a-zA-Z0-9]+)([^>]*)>|[^<]+/g);
  for (const t of tokens) {
    const [whole, tag, rest] = t;
    if (whole.startsWith('<style>')) continue;
    if (tag === undefined) {
      if (whole.trim() !== '') top().children.push(decode(whole));
      continue;
    }
    const name = tag.toLowerCase();
    if (whole.startsWith('</')) {
      if (top().tag !== name) throw new Error(`</${name}> closes <${top().tag}>`);
      stack.pop();
    } else {
      const el: Element = { tag: name, attrs: attrsOf(rest ?? ''), children: [] };
      top().children.push(el);
      if (!VOID.has(name)) stack.push(el);
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${top().tag}>`);
  return root;
}

/** Every element under `el` matching `test`, in document order. */
export function findAll(el: Element, test: (e: Element) => boolean): Element[] {
  const out: Element[] = [];
  for (const c of el.children) {
    if (typeof c === 'string') continue;
    if (test(c)) out.push(c);
    out.push(...findAll(c, test));
  }
  return out;
}

/** The text content of an element. */
export function textOf(el: Element | string): string {
  return typeof el === 'string' ? el : el.children.map(textOf).join('');
}

/** The body rows of the table with this id, as arrays of cell texts. */
export function tableRows(doc: Element, id: string): string[][] {
  const table = findAll(doc, (e) => e.tag === 'table' && e.attrs['id'] === id)[0];
  if (!table) throw new Error(`no table #${id}`);
  const body = findAll(table, (e) => e.tag === 'tbody')[0]!;
  return findAll(body, (e) => e.tag === 'tr').map((tr) => findAll(tr, (e) => e.tag === 'td').map(textOf));
}
