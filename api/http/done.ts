// What an action of the console or the account area that redirects says on
// the page it comes back to: `?done=KEY` picks one of the page's fixed
// messages, so nothing of the request is ever echoed (an unknown key shows
// nothing).
import type { Request } from 'express';
import { html, type SafeHtml } from '../html/html.js';
import { fieldsOf, formText } from './input.js';

const Done = fieldsOf({ done: formText });

export function doneNotice(req: Request, messages: Readonly<Record<string, string>>): SafeHtml | undefined {
  const key = Done.parse(req.query).done;
  return Object.hasOwn(messages, key) ? html`<p class="notice" role="status">${messages[key] ?? ''}</p>` : undefined;
}

/** The page `path` after the action `key` of its messages. */
export const doneAt = (path: string, key: string): string => `${path}?done=${encodeURIComponent(key)}`;
