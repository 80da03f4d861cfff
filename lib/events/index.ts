// events: an organisation's webhook endpoints, the outbox the audit trigger fills, and each endpoint's deliveries (docs/design/events.md).
import { createEndpoint } from './create-endpoint.ts';
import { deleteEndpoint } from './delete-endpoint.ts';
import { listDeliveries } from './list-deliveries.ts';
import { listEndpoints, readEndpoint } from './read-endpoint.ts';
import { retryDelivery } from './retry-delivery.ts';
import { rotateSecret } from './rotate-secret.ts';
import { updateEndpoint } from './update-endpoint.ts';

export const webhookEndpoints = {
  create: createEndpoint,
  list: listEndpoints,
  read: readEndpoint,
  update: updateEndpoint,
  remove: deleteEndpoint,
  rotateSecret,
  deliveries: listDeliveries,
  retry: retryDelivery,
};
export { endpointSchema } from './endpoint.ts';
export { deliverySchema } from './delivery.ts';
export { EVENT_TYPES } from './event-types.ts';
