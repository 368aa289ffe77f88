import { describe, expect, it } from 'vitest';
import { shownUrl } from '../../src/domain/config.js';
import { upstreamLocation } from '../../src/upstream/kinds.js';
import { requestUrl, urlScrubber, walletStatesRequestLineBytes } from '../../src/upstream/http/urls.js';

/** Upstream URLs: what is shown of them (scheme, host, port, and that there was more), how a request's URL is made from one, and their secrets scrubbed from messages. */

describe('upstream URLs', () => {
  it('shows scheme, host and port only, and /… when there was a path, a query or a fragment', () => {
    expect(shownUrl('https://toncenter.com')).toBe('https://toncenter.com');
    expect(shownUrl('https://toncenter.com/')).toBe('https://toncenter.com');
    expect(shownUrl('https://go.example.io/0123456789abcdef/')).toBe('https://go.example.io/…');
    expect(shownUrl('https://host:8443/api?api_key=secret')).toBe('https://host:8443/…');
    expect(shownUrl('https://user:pass@host/#frag')).toBe('https://host/…');
    expect(shownUrl('http://user:pass@10.0.0.5:8081')).toBe('http://10.0.0.5:8081');
    expect(shownUrl('redis://:s3cret@redis:6379/2')).toBe('redis://redis:6379/…');
    expect(shownUrl('not a url s3cret')).toBe('(not a URL)');
    expect(upstreamLocation({ kind: 'http', name: 'p', url: 'https://h/key/', rps: 1, timeoutMs: 1 })).toBe('https://h/…');
  });

  it("appends the API path to the base's path, and the request's query after the base's own", () => {
    expect(requestUrl('https://h/key/', '/api/v2/getOutMsgQueueSizes', undefined).href).toBe('https://h/key/api/v2/getOutMsgQueueSizes');
    expect(requestUrl('https://h/?api_key=k', '/api/v3/walletStates', 'address=a,b').href).toBe('https://h/api/v3/walletStates?api_key=k&address=a,b');
    expect(requestUrl('https://h', '/api/v2/getMasterchainInfo', undefined).href).toBe('https://h/api/v2/getMasterchainInfo');
    // The base's query counts in the request line a proxy has to hold.
    expect(walletStatesRequestLineBytes('https://h/?api_key=k', 10) - walletStatesRequestLineBytes('https://h/', 10)).toBe('?api_key=k'.length);
  });

  it("scrubs the URL's path segments, query values and password from a message, in any spelling", () => {
    const scrub = urlScrubber('https://user:pa%24%24word@h/0123456789abcdef/v2/?api_key=query-secret&x=1');
    const echoed = 'The requested URL /0123456789abcdef/v2/api/v3/walletStates?api_key=query-secret could not be served (pa$$word, pa%24%24word)';
    const scrubbed = scrub(echoed);
    for (const secret of ['0123456789abcdef', 'query-secret', 'pa$$word', 'pa%24%24word']) expect(scrubbed).not.toContain(secret);
    expect(scrubbed).toContain('could not be served');
    // A URL with nothing in it to hide leaves messages as they are.
    expect(urlScrubber('https://toncenter.com')('HTTP 500: oops')).toBe('HTTP 500: oops');
  });
});
