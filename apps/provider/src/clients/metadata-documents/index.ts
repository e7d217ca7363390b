export { DROPPED_GRANTS, isDocumentClientId, MAX_DOCUMENT_BYTES } from './document.ts';
export {
  DocumentClients,
  type DocumentClientsOptions,
  FETCHES_PER_HOST,
  HELD_CLIENTS,
  HELD_REFUSALS,
} from './document-clients.ts';
export { MAX_SECONDS, MIN_SECONDS } from './freshness.ts';
export { type DocumentView, documentView } from './view.ts';
