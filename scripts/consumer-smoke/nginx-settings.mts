// The README's example, verbatim apart from the assertions.
import assert from 'node:assert/strict';
import { HTTP_WHOLE_NUMBER_RANGES, isInRange, type HttpOptions } from '@ingresskit/nginx-settings';

const http: HttpOptions = { http2: true, clientHeaderBufferSize: '4k', serverNamesHashBucketSize: 128 };
assert.equal(
  isInRange(http.serverNamesHashBucketSize, HTTP_WHOLE_NUMBER_RANGES.serverNamesHashBucketSize),
  true,
);
assert.deepEqual(HTTP_WHOLE_NUMBER_RANGES.brotliLevel, { min: 0, max: 11 });
