import { describe, expect, it } from 'vitest';
import { parseNginxStatus } from './nginx-status.js';

describe('parseNginxStatus', () => {
  it("reads stub_status' connection and request counters", () => {
    const text =
      'Active connections: 3 \nserver accepts handled requests\n 17 16 42 \nReading: 1 Writing: 2 Waiting: 0 \n';
    expect(parseNginxStatus(text)).toEqual({
      active: 3,
      accepted: 17,
      handled: 16,
      requests: 42,
      reading: 1,
      writing: 2,
      waiting: 0,
    });
  });

  it('answers undefined when the text is not a stub_status answer', () => {
    expect(parseNginxStatus('<html>404 Not Found</html>')).toBeUndefined();
    expect(parseNginxStatus('Active connections: 3 \n')).toBeUndefined();
  });
});
