export {
  type CatalogEventType,
  createEventCatalog,
  EVENT_CATALOG_FILE,
  type EventCatalog,
  EventCatalogError,
  loadEventCatalog,
} from '../catalog/event-catalog.js';
export type { EventScope } from '../catalog/openapi-events.js';
