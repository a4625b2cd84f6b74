/** The methods a route may match or an auth check may use. */

/** The HTTP methods of RFC 9110 and PATCH (RFC 5789), upper case, as Gateway API and ingress-nginx name them. */
export const HTTP_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
]);
