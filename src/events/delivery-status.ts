// The states of one delivery attempt, owned by the dispatcher that moves attempts through them; the public
// delivery resource (resources/webhooks) serves and filters on the same list.
export const DeliveryStatuses = ['pending', 'delivering', 'delivered', 'failed', 'exhausted'] as const;
export type DeliveryStatus = (typeof DeliveryStatuses)[number];
