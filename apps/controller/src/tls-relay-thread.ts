/**
 * The TLS relay's worker thread in the built `ingresskit`: the bundle inlines @ingresskit/tcp-proxy,
 * whose TlsRelay starts its worker on `tls-relay-thread.js` next to its own code, so this entry
 * is built into dist/ beside cli.js. From source, the package's own file runs instead.
 */
import { runTlsRelayWorker } from '@ingresskit/tcp-proxy';

runTlsRelayWorker();
