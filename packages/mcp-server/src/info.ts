// Who the server says it is at initialize, in a JSON file so the CLI can answer the stdio
// handshake from it before any TypeScript (and so the tools) has loaded (apps/cli/src/early-stdio.js).
// The package's own manifest, one folder up from both src/ and dist/; a bundler inlines it.
// `changeset version` bumps it, so the version a client sees is the version that was installed.
import manifest from '../package.json' with { type: 'json' };
import info from './server-info.json' with { type: 'json' };

export const SERVER_NAME: string = info.name;
export const SERVER_VERSION: string = manifest.version;
export const SERVER_INSTRUCTIONS: string = info.instructions;
export const SERVER_CAPABILITIES = info.capabilities;
