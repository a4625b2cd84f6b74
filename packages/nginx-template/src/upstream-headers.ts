/**
 * The request headers nginx adds on the way to every backend and the response headers it hides
 * from clients (ingress-nginx's generate-request-id, proxy-add-original-uri-header and
 * hide-headers): options checked into settings, and settings into the template's view.
 */
import { InvalidRenderOptionsError } from './errors.js';

/** RenderOptions.upstreamHeaders. */
export interface UpstreamHeaderOptions {
  /** Send X-Request-ID: the client's, else one nginx makes (ingress-nginx's default); default true. */
  requestId?: boolean;
  /** Send X-Original-URI: the request URI as the client sent it; default false. */
  originalUri?: boolean;
  /** Response headers of backends never passed on to clients (names, A-Z a-z 0-9 -). */
  hide?: string[];
}

/** The checked options: absent at their defaults, so the hash of a configuration without them stays. */
export interface UpstreamHeaderSettings {
  noRequestId?: true;
  originalUri?: true;
  /** Unique, in the order given. */
  hide?: string[];
}

const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const MAX_HIDDEN = 64;

/** Checks RenderOptions.upstreamHeaders; undefined at the defaults. Throws InvalidRenderOptionsError. */
export function checkUpstreamHeaders(
  options: UpstreamHeaderOptions | undefined,
): UpstreamHeaderSettings | undefined {
  if (options === undefined) return undefined;
  const settings: UpstreamHeaderSettings = {};
  if (options.requestId === false) settings.noRequestId = true;
  if (options.originalUri === true) settings.originalUri = true;
  const hide = [...new Set(options.hide ?? [])];
  if (hide.length > MAX_HIDDEN)
    throw new InvalidRenderOptionsError('upstreamHeaders.hide', `must name at most ${MAX_HIDDEN} headers`);
  for (const name of hide)
    if (typeof name !== 'string' || !HEADER_NAME.test(name))
      throw new InvalidRenderOptionsError(
        'upstreamHeaders.hide',
        `must hold header names of A-Z a-z 0-9 - (got ${JSON.stringify(name)})`,
      );
  if (hide.length > 0) settings.hide = hide;
  return Object.keys(settings).length === 0 ? undefined : settings;
}

/** The template's view of the settings. */
export function viewUpstreamHeaders(settings: UpstreamHeaderSettings | undefined) {
  return {
    requestId: settings?.noRequestId !== true,
    originalUri: settings?.originalUri === true,
    hide: settings?.hide ?? [],
  };
}
