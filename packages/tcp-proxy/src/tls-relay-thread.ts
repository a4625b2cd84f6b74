/** The file the TLS relay's worker thread runs (see tls-relay.ts); built as its own entry. */
import { runTlsRelayWorker } from './tls-relay-worker.js';

runTlsRelayWorker();
