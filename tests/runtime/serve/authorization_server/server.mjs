// A real OAuth authorization server for the tests: oidc-provider (pinned in the Makefile), on loopback.
// Usage: node server.mjs PORT RESOURCE [JWKS_FILE]; prints "ready" once it listens. JWKS_FILE holds the private
// signing keys (a JWKS), the first one signing; without it, oidc-provider's development keys. Clients:
//   writer / writer-secret: JWT access tokens with notes:read notes:write
//   reader / reader-secret: JWT access tokens with notes:read
//   opaque / opaque-secret: opaque access tokens with notes:read notes:write
//   toolproof / toolproof-secret: the resource server itself, allowed to introspect
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, resource, keys] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
const client = (id, scope) => ({
  client_id: id, client_secret: `${id}-secret`, grant_types: ['client_credentials'],
  redirect_uris: [], response_types: [], ...(scope ? { scope } : {}),
});
const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    client('writer', 'notes:read notes:write'),
    client('reader', 'notes:read'),
    client('opaque', 'notes:read notes:write'),
    client('toolproof'),
  ],
  scopes: ['notes:read', 'notes:write'],
  ...(keys ? { jwks: JSON.parse(readFileSync(keys, 'utf8')) } : {}),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true, allowedPolicy: () => true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator, { clientId }) => ({
        scope: 'notes:read notes:write',
        audience: indicator,
        accessTokenTTL: 300,
        accessTokenFormat: clientId === 'opaque' ? 'opaque' : 'jwt',
      }),
    },
  },
});
provider.listen(port, '127.0.0.1', () => console.log('ready'));
