// Whether a signed webhook id was already used: the cheap early refusal of a replay (the commit's primary key is the guarantee).
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';

export async function isWebhookUsed(deps: Deps, webhookId: string): Promise<boolean> {
  const rows = await dbCall('read', 'webhook.delivery.read', (signal) =>
    deps.db.query('SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1', [webhookId], { signal }),
  );
  return rows.length > 0;
}
