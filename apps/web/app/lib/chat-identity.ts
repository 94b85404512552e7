/**
 * Who the support chat (Crisp) is talking to. A signed-in user's chat is tied to their `chatWidgetToken`
 * (an HMAC of their id under the app secret: private, unguessable, the same on every device), so the same
 * conversation comes back in another browser or after cookies are cleared, and it carries their email so
 * support knows whom they answer. Crisp reads the token only when its script loads, so a change afterwards
 * (sign-in, sign-out, another account) sets it again and resets the chat session: the next person at this
 * browser never sees the previous one's conversation.
 */
export interface ChatUser {
  emailAddress: string;
  chatWidgetToken: string;
}

/** The globals Crisp reads before its script loads, and its command queue. */
export interface ChatGlobals {
  $crisp?: unknown[];
  CRISP_TOKEN_ID?: string;
}

/** Before the script loads: the token it should restore, and the email to show support. */
export function prepareChat(w: ChatGlobals, user: ChatUser | null): void {
  w.$crisp = w.$crisp ?? [];
  if (user) {
    w.CRISP_TOKEN_ID = user.chatWidgetToken;
    w.$crisp.push(['set', 'user:email', [user.emailAddress]]);
  } else delete w.CRISP_TOKEN_ID;
}

/** After the script loaded: the chat follows a change of user; the same user again changes nothing. */
export function switchChat(w: ChatGlobals, previous: ChatUser | null, next: ChatUser | null): void {
  if ((previous?.chatWidgetToken ?? null) === (next?.chatWidgetToken ?? null)) return;
  // The token first: a loaded Crisp runs a pushed command at once, and the reset must restore the new one.
  if (next) w.CRISP_TOKEN_ID = next.chatWidgetToken;
  else delete w.CRISP_TOKEN_ID;
  const queue = (w.$crisp ??= []);
  queue.push(['do', 'session:reset']);
  if (next) queue.push(['set', 'user:email', [next.emailAddress]]);
}
