/**
 * The host check: a request whose host (its `Host` header, or `X-Forwarded-Host` behind a trusted
 * proxy) is malformed is refused with 400 before anything else runs; every other request carries
 * `linkOrigin`, the origin its links are built from (src/lib/hosts.ts has the rule and its reason).
 */
import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { type AllowedHosts, linkOrigin, parseHost } from '../lib/hosts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** `protocol://host[:port]` of this request's links: its own host when allowed, else the fallback. */
    linkOrigin: string;
  }
}

export interface HostCheckOptions {
  allowedHosts: AllowedHosts;
  /** The origin of the links of a request whose host is not allowed. */
  fallbackOrigin: string;
}

export function installHostCheck(app: FastifyInstance, { allowedHosts, fallbackOrigin }: HostCheckOptions): void {
  app.decorateRequest('linkOrigin', '');
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const host = parseHost(request.host);
    if (host === null) throw new ApiError(400, 'rest_bad_request', 'errorMessage.rest_bad_request.host', { header: 'Host' });
    request.linkOrigin = linkOrigin(request.protocol, host, allowedHosts, fallbackOrigin);
  });
}
