import { describe, expect, it } from 'vitest';
import { prepareChat, switchChat, type ChatGlobals } from './chat-identity.ts';

const alex = { emailAddress: 'alex@example.com', chatWidgetToken: 'a'.repeat(32) };
const sam = { emailAddress: 'sam@example.com', chatWidgetToken: 'b'.repeat(32) };

describe('the support chat follows who is signed in', () => {
  it('a signed-in user gets their own conversation back, and support sees their email', () => {
    const w: ChatGlobals = {};
    prepareChat(w, alex);
    expect(w.CRISP_TOKEN_ID).toBe(alex.chatWidgetToken);
    expect(w.$crisp).toEqual([['set', 'user:email', [alex.emailAddress]]]);
  });

  it('a visitor gets an anonymous chat', () => {
    const w: ChatGlobals = { CRISP_TOKEN_ID: 'left over' };
    prepareChat(w, null);
    expect(w.CRISP_TOKEN_ID).toBeUndefined();
    expect(w.$crisp).toEqual([]);
  });

  it('signing out resets the chat, so the next person at this browser does not see the conversation', () => {
    const w: ChatGlobals = {};
    prepareChat(w, alex);
    switchChat(w, alex, null);
    expect(w.CRISP_TOKEN_ID).toBeUndefined();
    expect(w.$crisp?.at(-1)).toEqual(['do', 'session:reset']);
  });

  it('another account signing in gets its own conversation; the same user again changes nothing', () => {
    const w: ChatGlobals = {};
    prepareChat(w, alex);
    switchChat(w, alex, sam);
    expect(w.CRISP_TOKEN_ID).toBe(sam.chatWidgetToken);
    expect(w.$crisp?.slice(-2)).toEqual([
      ['do', 'session:reset'],
      ['set', 'user:email', [sam.emailAddress]],
    ]);
    const queued = w.$crisp?.length;
    switchChat(w, sam, { ...sam });
    expect(w.$crisp?.length).toBe(queued);
  });
});
