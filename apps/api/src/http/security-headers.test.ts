import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pageCsp } from './security-headers.ts';

describe('page Content-Security-Policy', () => {
  it('allows exactly the inline scripts of the page, by hash, and nothing inline otherwise', () => {
    const html =
      '<html><script>window.a=1</script><script type="module">import "/x.js"</script><script src="/assets/y.js"></script></html>';
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const csp = pageCsp(html);
    expect(csp).toContain(`script-src 'self' ${hash('window.a=1')} ${hash('import "/x.js"')}`);
    expect(csp).not.toContain("'unsafe-inline' 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });
});
