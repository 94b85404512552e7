/** A chat component as a status answer's `description` carries it. */
export interface ChatComponent {
  text?: string;
  extra?: (ChatComponent | string)[];
}

/**
 * The plain words of a status answer's `description`, as a player reads them in the server list: the text
 * of the component and of its `extra` parts in order (colours and formats dropped). A plain string (older
 * servers) is returned as it is.
 */
export function statusText(description: ChatComponent | string): string {
  if (typeof description === 'string') return description;
  return (description.text ?? '') + (description.extra ?? []).map((part) => statusText(part)).join('');
}
