// A patch rendered by diff2html, unified or split. diff2html escapes every line and name it writes; its HTML is
// still passed through an allowlist of the elements and attributes it produces before it enters the page, so a
// patch can never become markup. A patch too long to lay out at once is cut at a line and says so, with a link
// to the whole object; text that does not parse as a diff is shown as text with a notice.
import { html, parse } from 'diff2html';
import { el } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';

/** A file as diff2html parses it. */
type DiffFile = ReturnType<typeof parse>[number];

export type PatchLayout = 'line-by-line' | 'side-by-side';

/** Past this many characters a patch is cut for display: laying it out would take seconds. */
export const PATCH_CHARS_SHOWN = 32 * 1024;

export interface ParsedPatch {
  /** The text laid out: the whole patch, or its head cut at a line. */
  shown: string;
  /** The whole patch's length, when `shown` is its head. */
  cutFrom: number | null;
  files: DiffFile[];
}

export function parsePatch(patch: string): ParsedPatch {
  const cut = patch.length > PATCH_CHARS_SHOWN;
  const shown = cut ? patch.slice(0, patch.lastIndexOf('\n', PATCH_CHARS_SHOWN) + 1 || PATCH_CHARS_SHOWN) : patch;
  return { shown, cutFrom: cut ? patch.length : null, files: parse(shown) };
}

/** A file's path as diff2html names it: "old → new" for a rename, the old path of a deleted file. */
export const filePath = (f: DiffFile) =>
  f.newName === '/dev/null' ? f.oldName : f.oldName !== f.newName && f.oldName !== '/dev/null' ? f.oldName : f.newName;

const size = (chars: number) =>
  chars >= 1024 * 1024 ? `${(chars / 1024 / 1024).toFixed(1)} MiB` : `${count(Math.round(chars / 1024))} KiB`;

/**
 * The patch's view: the notices it needs, then its files laid out. `full` is the link to the whole object,
 * shown when the patch is cut here.
 */
export function patchView(parsed: ParsedPatch, label: string, layout: PatchLayout, full: HTMLElement): HTMLElement {
  const notices: HTMLElement[] = [];
  if (parsed.cutFrom !== null)
    notices.push(
      el(
        'p',
        { class: 'warn patch-cut', role: 'note' },
        `This patch is ${size(parsed.cutFrom)}: only its first ${size(parsed.shown.length)} are shown here. `,
        full,
      ),
    );
  if (!parsed.files.length) {
    notices.push(
      el('p', { class: 'warn patch-unparsed', role: 'note' }, 'This patch does not parse as a diff: shown as text.'),
    );
    return el(
      'div',
      { class: 'patch' },
      ...notices,
      el('pre', { class: 'patch-text', 'aria-label': label }, parsed.shown),
    );
  }
  const view = el('div', { class: 'patch-files', 'aria-label': label, role: 'region' });
  view.append(allowed(html(parsed.files, { outputFormat: layout, drawFileList: false, matching: 'none' })));
  return el('div', { class: 'patch' }, ...notices, view);
}

const TAGS = new Set(['DIV', 'SPAN', 'TABLE', 'TBODY', 'TR', 'TD', 'INS', 'DEL', 'BR', 'SVG', 'PATH', 'LABEL']);
const ATTRIBUTES = new Set(['class', 'id', 'd', 'viewbox', 'width', 'height', 'version', 'aria-hidden', 'fill-rule']);

/** diff2html's HTML as nodes, keeping only the elements and attributes its templates write. */
function allowed(markup: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = markup;
  const walker = document.createTreeWalker(template.content, NodeFilter.SHOW_ELEMENT);
  const drop: Element[] = [];
  for (let node = walker.nextNode() as Element | null; node; node = walker.nextNode() as Element | null) {
    if (!TAGS.has(node.tagName.toUpperCase())) drop.push(node);
    else for (const a of [...node.attributes]) if (!ATTRIBUTES.has(a.name.toLowerCase())) node.removeAttribute(a.name);
  }
  for (const node of drop) node.replaceWith(node.textContent ?? '');
  return template.content;
}
