/** ingress-nginx's default compressed MIME types: gzip's (settings.ts), and so brotli's (http-settings.ts). */

/** ingress-nginx's default gzip-types. */
export const DEFAULT_GZIP_TYPES: readonly string[] = [
  'application/atom+xml',
  'application/javascript',
  'application/x-javascript',
  'application/json',
  'application/rss+xml',
  'application/vnd.ms-fontobject',
  'application/x-font-ttf',
  'application/x-web-app-manifest+json',
  'application/xhtml+xml',
  'application/xml',
  'font/opentype',
  'image/svg+xml',
  'image/x-icon',
  'text/css',
  'text/javascript',
  'text/plain',
  'text/x-component',
];
