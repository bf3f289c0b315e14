// The only way the cockpit builds DOM. Text goes in through textContent and attribute values through
// setAttribute, never through innerHTML: model names, task ids, patches and summaries come from runner
// hosts and are untrusted.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined> & {
  class?: string;
  style?: string;
};

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children in one step, so an update never shows a half-built view. */
export function fill(parent: Element, ...children: Child[]): void {
  const fragment = document.createDocumentFragment();
  append(fragment, children);
  parent.replaceChildren(fragment);
}

export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`The page has no #${id}.`);
  return node as T;
};

/**
 * A name (model, harness version, configuration, repository, task) with a line-break chance after each `-`, `_`
 * and `/`: in a narrow column it wraps between its parts, never one letter per line. The text reads and copies
 * as it was.
 */
export function nameText(name: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const part of name.split(/(?<=[-_/])/)) {
    if (fragment.childNodes.length) fragment.append(document.createElement('wbr'));
    fragment.append(part);
  }
  return fragment;
}

/**
 * A link within the cockpit: a real address (a new tab, a copied link), followed by script on a plain click so the
 * page changes its view without loading again.
 */
export function appLink(href: string, follow: () => void, attrs: Attrs, ...children: Child[]): HTMLAnchorElement {
  const a = el('a', { ...attrs, href }, ...children);
  a.addEventListener('click', (e) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0) return;
    e.preventDefault();
    follow();
  });
  return a;
}

/** A table wider than its card scrolls sideways inside it, a region a keyboard reaches. */
export const sidewaysScroll = (what: string, table: HTMLElement) =>
  el('div', { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': `${what} (scrolls sideways)` }, table);

/** The width in px of a text in `font` (a CSS font shorthand), measured on a canvas. */
export function textMeasure(font: string): (text: string) => number {
  const context = document.createElement('canvas').getContext('2d')!;
  context.font = font;
  return (text) => context.measureText(text).width;
}

/**
 * `text` whole where it fits `width`, else as much of its start and end as fit around an ellipsis, the end kept
 * a little longer: a name that differs from another only in its suffix (a date, a version) still reads apart.
 */
export function middleCut(text: string, width: number, measure: (text: string) => number): string {
  if (measure(text) <= width) return text;
  const chars = [...text];
  const cut = (kept: number) => {
    const end = Math.ceil(kept / 2);
    return `${chars.slice(0, kept - end).join('')}…${chars.slice(chars.length - end).join('')}`;
  };
  // The most characters kept that still fit, found by halving.
  let [fits, over] = [0, chars.length];
  while (over - fits > 1) {
    const mid = (fits + over) >> 1;
    if (measure(cut(mid)) <= width) fits = mid;
    else over = mid;
  }
  return cut(fits);
}
